#if OSS_ASYNC_HTTP_CLIENT
import AsyncHTTPClient
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import Tracing

/// The default transport on Linux, over AsyncHTTPClient. File-range bodies are streamed from the file in 1 MiB
/// chunks read as the connection takes them (``FileRangeChunks``).
///
/// Not available on Apple platforms, where the SDK links no AsyncHTTPClient: use ``OSSURLSessionTransport``.
public final class AsyncHTTPClientTransport: OSSHTTPTransport {
    /// The chunk size used to stream file bodies: 1 MiB (fewer reads and thread hops than smaller chunks for the
    /// same bytes; at most a few chunks per request are buffered).
    public static let fileChunkLength = Int64(OSSFileDigest.chunkLength)

    let client: HTTPClient
    let ownsClient: Bool
    /// The file bodies' buffers between requests.
    let spareBuffers = FileRangeChunks.SpareBuffers()

    /// Creates a transport with its own `HTTPClient` on the shared event loop group.
    public init(configuration: OSSClientConfiguration) {
        var http = HTTPClient.Configuration()
        http.timeout = HTTPClient.Configuration.Timeout(
            connect: .nanoseconds(configuration.timeouts.connect.nanosecondsValue),
            read: .nanoseconds(configuration.timeouts.read.nanosecondsValue))
        http.connectionPool = HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: configuration.maxConcurrentRequestCount)
        http.redirectConfiguration = .disallow
        if let proxy = configuration.proxy { http.proxy = .server(host: proxy.host, port: proxy.port) }
        http.decompression = .disabled
        http.tracing.tracer = Self.requestTracer(configuration, bootstrapped: InstrumentationSystem.tracer)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
        ownsClient = true
    }

    /// The tracer AsyncHTTPClient wraps each request in a span of (it defaults to the one bootstrapped when its
    /// configuration is made), or `nil` for none:
    /// - none while nothing is bootstrapped (the no-op tracer): that span and its attributes were about 4 % of a
    ///   small request's CPU, spent on nothing;
    /// - none when the client's own middleware makes spans (``OSSClientConfiguration/transportMakesSpans`` is
    ///   off): its spans cover each request, and AsyncHTTPClient's beside them cost as much as all of the
    ///   client's spans and metrics together.
    static func requestTracer(_ configuration: OSSClientConfiguration, bootstrapped: any Tracer) -> (any Tracer)? {
        guard configuration.transportMakesSpans, !(bootstrapped is NoOpTracer) else { return nil }
        return bootstrapped
    }

    /// Uses an existing `HTTPClient`, which the caller keeps ownership of.
    public init(client: HTTPClient) {
        self.client = client
        ownsClient = false
    }

    /// Shuts the transport's own `HTTPClient` down (not one passed in); a second call returns too. A request after
    /// it fails with ``OSSClientErrorCode/clientShutDown``, unsent.
    public func shutdown() async throws {
        guard ownsClient else { return }
        do {
            try await client.shutdown()
        } catch let error as HTTPClientError where error == .alreadyShutdown {
            // Shut down by an earlier call.
        }
    }

    public func send<Result: Sendable>(
        _ request: OSSHTTPRequest,
        handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        var http = HTTPClientRequest(url: request.url)
        http.method = HTTPMethod(rawValue: request.method)
        for (name, value) in request.headers {
            http.headers.add(name: name, value: value)
        }
        let deadline: NIODeadline = request.timeout.map { .now() + .nanoseconds($0.nanosecondsValue) } ?? .distantFuture
        let onChunkSent = request.onChunkSent
        do {
            switch request.body {
            case .empty:
                if request.method == "PUT" || request.method == "POST" {
                    http.body = .bytes(ByteBuffer())
                }
                return try await execute(http, deadline: deadline, handler: handler)
            case .bytes(let data):
                let buffer = ByteBuffer(data: data)
                if let onChunkSent {
                    let chunks = ChunkedBuffer(buffer: buffer)
                    http.body = .stream(
                        CountingSequence(base: chunks, onChunk: onChunkSent), length: .known(Int64(buffer.readableBytes)))
                } else {
                    http.body = .bytes(buffer)
                }
                return try await execute(http, deadline: deadline, handler: handler)
            case .stream(let length, let stream):
                http.body = .stream(
                    CountingSequence(base: StreamSequence(stream: stream), onChunk: onChunkSent),
                    length: .known(length))
                return try await execute(http, deadline: deadline, handler: handler)
            case .fileRange(let path, let offset, let length):
                return try await sendFileRange(
                    http, path: path, offset: offset, length: length, deadline: deadline, onChunkSent: onChunkSent,
                    handler: handler)
            }
        } catch {
            throw OSSTransportErrorMapper.map(error)
        }
    }

    private func sendFileRange<Result: Sendable>(
        _ request: HTTPClientRequest, path: String, offset: Int64, length: Int64, deadline: NIODeadline,
        onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?, handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        var request = request
        // The file is closed on every way out, cancellation included; a failure to open it is `.fileCantRead`.
        return try await OSSFile.withFile(path, .read) { file in
            let size = try file.size()
            guard offset >= 0, length >= 0, offset <= size, length <= size - offset else {
                throw OSSClientError(
                    .fileCantRead, "\(path) has \(size) bytes; the range \(offset)+\(length) is outside it")
            }
            let chunks = FileRangeChunks(
                file: file, range: offset..<(offset + length), chunkLength: Int(Self.fileChunkLength), spares: spareBuffers)
            request.body = .stream(
                CountingSequence(base: chunks, onChunk: onChunkSent), length: .known(length))
            return try await execute(request, deadline: deadline, handler: handler)
        }
    }

    private func execute<Result: Sendable>(
        _ request: HTTPClientRequest, deadline: NIODeadline, handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        let response = try await client.execute(request, deadline: deadline)
        var headers: [String: String] = [:]
        for header in response.headers {
            let name = header.name.lowercased()
            if let existing = headers[name] {
                headers[name] = existing + "," + header.value
            } else {
                headers[name] = header.value
            }
        }
        let body = Self.responseBody(response.body)
        return try await handler(OSSHTTPResponse(status: Int(response.status.code), headers: headers, body: body))
    }
}
#endif
