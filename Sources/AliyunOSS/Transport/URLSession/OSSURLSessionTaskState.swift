import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One exchange's state, fed by the session delegate and read by the caller: the response head and body through an
/// ``OSSByteChannel`` (the delegate is its callback producer: the task is suspended while the channel's limit of
/// bytes waits to be read, resumed at half of it, cancelled when the caller stops reading) and the upload progress.
final class OSSURLSessionTaskState: Sendable {
    let task: URLSessionTask
    let upload: OSSURLSessionUploadSource?
    private let onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?
    /// Called when the session reports that the task waits for connectivity.
    let onWaitingForConnectivity: (@Sendable () -> Void)?
    private let response: OSSByteChannel<HTTPURLResponse>
    /// The upload bytes reported sent.
    private let reportedSent = OSSLockedValue<Int64>(0)

    init(
        task: URLSessionTask, upload: OSSURLSessionUploadSource?, onChunkSent: (@Sendable (UnsafeRawBufferPointer) -> Void)?,
        onWaitingForConnectivity: (@Sendable () -> Void)? = nil, highWater: Int
    ) {
        self.onWaitingForConnectivity = onWaitingForConnectivity
        self.task = task
        self.upload = upload
        self.onChunkSent = onChunkSent
        var hooks = OSSByteChannel<HTTPURLResponse>.Hooks(consumerGone: { task.cancel() })
        if Self.canSuspendToThrottle {
            hooks.paused = { task.suspend() }
            hooks.resumed = { task.resume() }
        }
        response = OSSByteChannel(limit: highWater, hooks: hooks)
    }

    // MARK: Delegate side (the session's serial delegate queue)

    func didSend(totalBytesSent: Int64) {
        guard let upload, let onChunkSent else { return }
        // Only bytes past those already reported: if the session sends the body again (a stale connection), the
        // bytes it repeats are the same body bytes, so what is reported stays the body, in order, once.
        let range: Range<Int64>? = reportedSent.withLockedValue { reported in
            let upper = min(totalBytesSent, upload.length)
            guard upper > reported else { return nil }
            defer { reported = upper }
            return reported..<upper
        }
        if let range, let bytes = upload.bytes(in: range) { bytes.withUnsafeBytes { onChunkSent($0) } }
    }

    func didReceive(response: HTTPURLResponse) {
        // A response to an upload means the server read the whole body: report what the session did not (before
        // the caller sees the answer).
        if let upload, (200..<300).contains(response.statusCode) { didSend(totalBytesSent: upload.length) }
        self.response.setHead(response)
    }

    func didReceive(data: Data) {
        response.yield(data)
    }

    func didComplete(error: (any Error)?) {
        if let error { response.fail(error) } else { response.finish() }
    }

    // MARK: Caller side

    /// Waits for the response head. Cancelling the waiting task cancels the URLSession task.
    func responseHead() async throws -> HTTPURLResponse {
        try await response.head()
    }

    /// The next body chunk, or nil at the end. Cancelling the reading task cancels the URLSession task.
    func nextChunk() async throws -> Data? {
        try await response.next()
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
    var isFinished: Bool { response.producerEnded }
}
