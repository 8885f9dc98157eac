import NIOConcurrencyHelpers

/// The cancellation state shared by copies of an ``OSSResumableDownloadRequest``: a sticky flag and the
/// handlers of the runs in progress.
final class OSSResumableDownloadCancellation: Sendable {
    private struct State {
        var cancelled = false
        var nextId = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = NIOLockedValueBox(State())

    var isCancelled: Bool { state.withLockedValue { $0.cancelled } }

    func cancel() {
        let handlers = state.withLockedValue { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            let handlers = Array(state.handlers.values)
            state.handlers = [:]
            return handlers
        }
        for handler in handlers { handler() }
    }

    /// Runs `body` in a child task that ``cancel()`` and the caller's cancellation both cancel.
    func run<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let task = Task { try await body() }
        let id: Int? = state.withLockedValue { state in
            guard !state.cancelled else { return nil }
            let id = state.nextId
            state.nextId += 1
            state.handlers[id] = { task.cancel() }
            return id
        }
        if id == nil { task.cancel() }
        defer {
            if let id { _ = state.withLockedValue { $0.handlers.removeValue(forKey: id) } }
        }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }
}
