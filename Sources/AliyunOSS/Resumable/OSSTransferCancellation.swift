import NIOConcurrencyHelpers

/// The cancellation state shared by the copies of an ``OSSResumableUploadRequest`` or
/// ``OSSResumableDownloadRequest``: a sticky flag and the tasks of the runs in progress, each cancelled by
/// ``cancel()``.
final class OSSTransferCancellation: Sendable {
    private struct State {
        var cancelled = false
        var nextId = 0
        var running: [Int: @Sendable () -> Void] = [:]
    }

    private let state = NIOLockedValueBox(State())

    var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

    func cancel() {
        let cancellers = state.withLockedValue { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            defer { state.running = [:] }
            return Array(state.running.values)
        }
        for cancelTask in cancellers { cancelTask() }
    }

    /// Runs `body` in a task that ``cancel()`` and the caller's own cancellation both cancel.
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let id: Int? = state.withLockedValue { state in
            guard !state.cancelled else { return nil }
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
