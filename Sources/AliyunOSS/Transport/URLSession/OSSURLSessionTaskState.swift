import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One exchange's state, fed by the session delegate and read by the caller: the response head, the body chunks
/// (with backpressure: the task is suspended while too many bytes wait to be read) and the upload progress.
final class OSSURLSessionTaskState: Sendable {
    private struct State {
        var head: Result<HTTPURLResponse, any Error>?
        var headWaiter: CheckedContinuation<HTTPURLResponse, any Error>?
        var chunks = OSSChunkQueue()
        var finished = false
        var failure: (any Error)?
        var bodyWaiter: CheckedContinuation<Data?, any Error>?
        var suspended = false
        var reportedSent: Int64 = 0
    }

    let task: URLSessionTask
    let upload: OSSURLSessionUploadSource?
    private let onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    /// Called when the session reports that the task waits for connectivity.
    let onWaitingForConnectivity: (@Sendable () -> Void)?
    private let highWater: Int
    private let state = OSSLockedValue(State())

    init(
        task: URLSessionTask, upload: OSSURLSessionUploadSource?, onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?,
        onWaitingForConnectivity: (@Sendable () -> Void)? = nil, highWater: Int
    ) {
        self.onWaitingForConnectivity = onWaitingForConnectivity
        self.task = task
        self.upload = upload
        self.onChunkSent = onChunkSent
        self.highWater = highWater
    }

    // MARK: Delegate side (the session's serial delegate queue)

    func didSend(totalBytesSent: Int64) {
        guard let upload, let onChunkSent else { return }
        // Only bytes past those already reported: if the session sends the body again (a stale connection), the
        // bytes it repeats are the same body bytes, so what is reported stays the body, in order, once.
        let range: Range<Int64>? = state.withLockedValue { state in
            let upper = min(totalBytesSent, upload.length)
            guard upper > state.reportedSent else { return nil }
            defer { state.reportedSent = upper }
            return state.reportedSent..<upper
        }
        if let range, let bytes = upload.bytes(in: range) { bytes.withUnsafeBytes { onChunkSent($0) } }
    }

    func didReceive(response: HTTPURLResponse) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<HTTPURLResponse, any Error>? in
            state.head = .success(response)
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        // A response to an upload means the server read the whole body: report what the session did not.
        if let upload, (200..<300).contains(response.statusCode) { didSend(totalBytesSent: upload.length) }
        waiter?.resume(returning: response)
    }

    func didReceive(data: Data) {
        let chunk = data
        let (waiter, suspend) = state.withLockedValue { state -> (CheckedContinuation<Data?, any Error>?, Bool) in
            if let waiter = state.bodyWaiter {
                state.bodyWaiter = nil
                return (waiter, false)
            }
            state.chunks.append(chunk)
            if Self.canSuspendToThrottle, state.chunks.byteCount >= highWater, !state.suspended {
                state.suspended = true
                return (nil, true)
            }
            return (nil, false)
        }
        if let waiter { waiter.resume(returning: chunk) }
        if suspend { task.suspend() }
    }

    func didComplete(error: (any Error)?) {
        let (headWaiter, bodyWaiter) = state.withLockedValue { state in
            state.finished = true
            state.failure = error
            if state.head == nil {
                state.head = .failure(error ?? URLError(.badServerResponse))
            }
            defer {
                state.headWaiter = nil
                state.bodyWaiter = nil
            }
            return (state.headWaiter, state.bodyWaiter)
        }
        if let headWaiter {
            headWaiter.resume(throwing: error ?? URLError(.badServerResponse))
        }
        if let bodyWaiter {
            if let error { bodyWaiter.resume(throwing: error) } else { bodyWaiter.resume(returning: nil) }
        }
    }

    // MARK: Caller side

    /// Waits for the response head.
    func responseHead() async throws -> HTTPURLResponse {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                let ready = state.withLockedValue { state -> Result<HTTPURLResponse, any Error>? in
                    if let head = state.head { return head }
                    state.headWaiter = continuation
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// The next body chunk, or nil at the end.
    func nextChunk() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                enum Next {
                    case chunk(Data, resume: Bool)
                    case end
                    case failed(any Error)
                    case wait
                }
                let next = state.withLockedValue { state -> Next in
                    if let chunk = state.chunks.popFirst() {
                        var resume = false
                        if state.suspended, state.chunks.byteCount <= highWater / 4 {
                            state.suspended = false
                            resume = true
                        }
                        return .chunk(chunk, resume: resume)
                    }
                    if state.finished {
                        if let failure = state.failure { return .failed(failure) }
                        return .end
                    }
                    state.bodyWaiter = continuation
                    return .wait
                }
                switch next {
                case .chunk(let chunk, let resume):
                    if resume { task.resume() }
                    continuation.resume(returning: chunk)
                case .end: continuation.resume(returning: nil)
                case .failed(let error): continuation.resume(throwing: error)
                case .wait: break
                }
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Whether suspending a running task pauses it. On Apple platforms it does; swift-corelibs-foundation's
    /// URLSession restarts the transfer from its first byte when a suspended task resumes (the response would be
    /// delivered twice), so on Linux received bytes are buffered without throttling the connection.
    static var canSuspendToThrottle: Bool {
        #if canImport(Darwin)
        true
        #else
        false
        #endif
    }

    /// Whether the task has finished (successfully or not).
    var isFinished: Bool { state.withLockedValue { $0.finished } }
}
