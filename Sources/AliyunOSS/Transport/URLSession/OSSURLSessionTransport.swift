import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A transport over `URLSession`: the default on Apple platforms, and available on Linux through
/// FoundationNetworking.
///
/// One session per transport, with a delegate, so that everything streams: request bodies are sent from memory
/// (up to ``inMemoryBodyLimit``, e.g. one part) or from a file, response bodies are handed to the caller chunk by
/// chunk with backpressure (the task is suspended while more than ``responseBufferLimit`` bytes wait to be read),
/// upload progress and the CRC-64 of the bytes sent come from the session's send callbacks, cancelling the Swift
/// task cancels the `URLSessionTask`, and redirects are never followed (the 3xx reaches the caller).
///
/// Tune the session through `sessionConfiguration` (e.g. `waitsForConnectivity`, `allowsCellularAccess`,
/// `allowsConstrainedNetworkAccess`); the transport sets its timeouts, disables caching and cookies.
public final class OSSURLSessionTransport: OSSHTTPTransport {
    /// Bodies up to this size are sent from memory; larger ranges are copied to a temporary file first.
    public static let inMemoryBodyLimit: Int64 = 64 << 20
    /// How many received bytes may wait to be read before the task is suspended.
    public static let responseBufferLimit = 4 << 20

    let session: URLSession
    let delegate: OSSURLSessionDelegate
    let readTimeout: TimeInterval

    /// Creates a transport with its own session, configured from `configuration` on top of `sessionConfiguration`.
    public init(configuration: OSSClientConfiguration, sessionConfiguration: URLSessionConfiguration = .default) {
        let session = sessionConfiguration.copy() as! URLSessionConfiguration
        readTimeout = configuration.timeouts.read.timeInterval
        session.timeoutIntervalForRequest = readTimeout
        if let whole = configuration.timeouts.request {
            session.timeoutIntervalForResource = whole.timeInterval
        }
        session.httpMaximumConnectionsPerHost = configuration.maxConcurrentRequestCount
        if let proxy = configuration.proxy { session.connectionProxyDictionary = proxy.connectionProxyDictionary }
        session.requestCachePolicy = .reloadIgnoringLocalCacheData
        session.urlCache = nil
        session.httpCookieStorage = nil
        session.httpShouldSetCookies = false
        let delegate = OSSURLSessionDelegate()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "com.aliyun.oss.urlsession"
        self.delegate = delegate
        self.session = URLSession(configuration: session, delegate: delegate, delegateQueue: queue)
    }

    /// Cancels the requests in flight and returns once the session is invalidated: after it returns, this transport
    /// sends nothing more (every task has ended and its connection is closed), and ``send(_:handler:)`` throws
    /// ``OSSClientErrorCode/clientShutDown``, without sending. Calling it again waits
    /// for the same invalidation and returns.
    ///
    /// The wait is not ended early by cancelling the calling task (a cleanup path in a cancelled task still gets the
    /// guarantee); it is short, since every task is cancelled first.
    public func shutdown() async throws {
        // `invalidateAndCancel()` reports the invalidation at once, before its cancelled tasks have ended (Apple's
        // documentation of `urlSession(_:didBecomeInvalidWithError:)`), and FoundationNetworking delivers no task
        // event after that report. Cancelling the tasks and then `finishTasksAndInvalidate()` has the session report
        // the invalidation after the last task's last event, so the report means no request is left.
        if let running = delegate.beginShutdown() {
            for task in running { task.cancel() }
            session.finishTasksAndInvalidate()
        }
        await delegate.waitForInvalidation()
    }

    /// A session keeps its delegate (and the system keeps the session) until it is invalidated: a transport that
    /// goes away without ``shutdown()`` (a client dropped by its owner) lets its running tasks finish and then
    /// releases the session, instead of leaking it for the life of the process.
    deinit {
        if delegate.beginShutdown() != nil { session.finishTasksAndInvalidate() }
    }

    public func send<Result: Sendable>(
        _ request: OSSHTTPRequest,
        handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        var deadline: Deadline?
        do {
            try Task.checkCancellation()
            if delegate.isShutDown { throw OSSTransportErrorMapper.shutDown() }
            guard let url = URL(string: request.url) else {
                throw OSSClientError(.invalidArgument, "not a valid URL: \(request.url)")
            }
            var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: readTimeout)
            urlRequest.httpMethod = request.method
            urlRequest.httpShouldHandleCookies = false
            for (name, value) in request.headers {
                urlRequest.setValue(value, forHTTPHeaderField: name)
            }
            #if !canImport(Darwin)
            // swift-corelibs-foundation cannot rewind a request body: when libcurl silently resends a request
            // whose reused connection died before any answer, the body comes out empty and the exchange hangs until
            // the read timeout. Without reused connections there is no such resend.
            urlRequest.setValue("close", forHTTPHeaderField: "Connection")
            #endif
            // The body is checked with CRC-64 as it was stored: no transparent compression.
            if request.headers["accept-encoding"] == nil {
                urlRequest.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
            }
            var body = request.body
            if case .empty = body, request.method == "PUT" || request.method == "POST" {
                body = .bytes(Data())
            }
            let upload = try await OSSURLSessionUploadSource.make(for: body, inMemoryLimit: Self.inMemoryBodyLimit)
            let state = try delegate.start {
                let task: URLSessionTask = upload?.makeTask(in: session, with: urlRequest) ?? session.dataTask(with: urlRequest)
                return OSSURLSessionTaskState(
                    task: task, upload: upload, onChunkSent: request.onChunkSent,
                    onWaitingForConnectivity: request.onWaitingForConnectivity, highWater: Self.responseBufferLimit)
            }
            defer {
                if !state.isFinished { state.task.cancel() }
                delegate.unregister(state)
            }
            deadline = request.timeout.map { Deadline(task: state.task, after: $0) }
            defer { deadline?.cancel() }
            let head = try await state.responseHead()
            let response = OSSHTTPResponse(
                status: head.statusCode, headers: Self.headers(of: head),
                body: OSSResponseBody(next: { try await state.nextChunk() }))
            return try await handler(response)
        } catch {
            if let deadline, deadline.fired, !Task.isCancelled {
                throw OSSClientError(.networkError, "the request did not finish within its time limit", underlying: error)
            }
            throw OSSTransportErrorMapper.map(error)
        }
    }

    /// Header names lower-cased; repeated headers arrive already joined with `,`.
    static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            headers[name.lowercased()] = "\(value)"
        }
        return headers
    }
}

/// Cancels a task when a whole-request limit passes, remembering that it did (a timeout, not a cancellation).
private struct Deadline: Sendable {
    private let timer: Task<Void, Never>
    private let firedBox: OSSLockedValue<Bool>

    init(task: URLSessionTask, after duration: Duration) {
        let fired = OSSLockedValue(false)
        firedBox = fired
        timer = Task {
            guard (try? await Task.sleep(for: duration)) != nil else { return }
            fired.withLockedValue { $0 = true }
            task.cancel()
        }
    }

    var fired: Bool { firedBox.withLockedValue { $0 } }

    func cancel() { timer.cancel() }
}
