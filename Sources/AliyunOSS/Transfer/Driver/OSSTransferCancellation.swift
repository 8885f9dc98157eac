
/// Why a resumable transfer was stopped by its request.
enum OSSTransferStopReason: Sendable, Hashable {
    /// ``OSSResumableUploadRequest/cancel()`` / ``OSSResumableDownloadRequest/cancel()``: the request's cancel
    /// policy applies (`deleteUploadIdOnCancelling` for uploads).
    case cancelled
    /// ``OSSResumableUploadRequest/pause()`` / ``OSSResumableDownloadRequest/pause()``: everything needed to
    /// resume is kept.
    case paused
}

/// The stop state shared by the copies of an ``OSSResumableUploadRequest`` or ``OSSResumableDownloadRequest``: a
/// sticky reason (the first of cancel or pause wins) and the tasks of the runs in progress, each cancelled when
/// the request is stopped.
final class OSSTransferCancellation: Sendable {
    private struct State {
        var reason: OSSTransferStopReason?
        var nextId = 0
        var running: [Int: @Sendable () -> Void] = [:]
    }

    private let state = OSSLockedValue(State())

    /// Why the request was stopped, or `nil` while it was not.
    var reason: OSSTransferStopReason? { state.withLockedValue { $0.reason } }

    /// Whether the request was stopped, by a cancel or a pause.
    var isStopped: Bool { reason != nil }

    var isCancelled: Bool { reason == .cancelled }

    var isPaused: Bool { reason == .paused }

    func cancel() { stop(.cancelled) }

    func pause() { stop(.paused) }

    private func stop(_ reason: OSSTransferStopReason) {
        let cancellers = state.withLockedValue { state -> [@Sendable () -> Void] in
            guard state.reason == nil else { return [] }
            state.reason = reason
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for cancelTask in cancellers { cancelTask() }
    }

    /// Runs `body` in a task that ``cancel()``, ``pause()`` and the caller's own cancellation all cancel.
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let id: Int? = state.withLockedValue { state in
            guard state.reason == nil else { return nil }
            let id = state.nextId
            state.nextId += 1
            state.running[id] = { task.cancel() }
            return id
        }
        if id == nil { task.cancel() }
        defer {
            if let id { _ = state.withLockedValue { $0.running.removeValue(forKey: id) } }
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
