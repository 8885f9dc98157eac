import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The session's delegate: starts every task of the session and routes its events to its
/// ``OSSURLSessionTaskState``, refuses redirects (a signed request is never followed to another URL silently: the 3xx
/// reaches the caller), and carries the session's shutdown: no task starts once it began, and it is over when the
/// session reports itself invalid (after its last task's last event).
final class OSSURLSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let tasks = OSSLockedValue<[Int: OSSURLSessionTaskState]>([:])
    private let lifecycle = OSSLockedValue(Lifecycle())

    private struct Lifecycle {
        /// Set by the first ``beginShutdown()``: no task is created after it.
        var isShutDown = false
        /// Set by `urlSession(_:didBecomeInvalidWithError:)`: the session will make no more delegate calls.
        var isInvalidated = false
        /// The tasks started and not completed yet, by identifier: what a shutdown cancels.
        var running: [Int: URLSessionTask] = [:]
        /// The shutdowns waiting for the invalidation.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Creates a task with `make`, registers its state and resumes it, unless the transport is shut down: creating a
    /// task in an invalidated session is a crash (an exception on Apple platforms, a fatal error in
    /// FoundationNetworking), so a shutdown and a start never interleave (both hold the lifecycle's lock).
    ///
    /// - Throws: `OSSTransportErrorMapper.shutDown()` once ``beginShutdown()`` has been called.
    func start(_ make: () -> OSSURLSessionTaskState) throws -> OSSURLSessionTaskState {
        try lifecycle.withLockedValue { lifecycle in
            guard !lifecycle.isShutDown else { throw OSSTransportErrorMapper.shutDown() }
            let state = make()
            lifecycle.running[state.task.taskIdentifier] = state.task
            register(state)
            state.task.resume()
            return state
        }
    }

    /// Whether ``beginShutdown()`` has been called (a request that would start now fails at once).
    var isShutDown: Bool { lifecycle.withLockedValue { $0.isShutDown } }

    /// Refuses every later ``start(_:)`` and returns the tasks still running when this is the first call, else nil
    /// (the session is being shut down by that first call already).
    func beginShutdown() -> [URLSessionTask]? {
        lifecycle.withLockedValue { lifecycle in
            guard !lifecycle.isShutDown else { return nil }
            lifecycle.isShutDown = true
            return Array(lifecycle.running.values)
        }
    }

    /// Returns once the session has reported itself invalid.
    func waitForInvalidation() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let invalidated = lifecycle.withLockedValue { lifecycle in
                if !lifecycle.isInvalidated { lifecycle.waiters.append(continuation) }
                return lifecycle.isInvalidated
            }
            if invalidated { continuation.resume() }
        }
    }

    func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        let waiters = lifecycle.withLockedValue { lifecycle in
            lifecycle.isInvalidated = true
            defer { lifecycle.waiters = [] }
            return lifecycle.waiters
        }
        // The last message a session sends: an exchange still waiting would wait forever.
        let orphans = tasks.withLockedValue { Array($0.values) }
        for state in orphans { state.didComplete(error: error ?? URLError(.cancelled)) }
        for waiter in waiters { waiter.resume() }
    }

    private func register(_ state: OSSURLSessionTaskState) {
        tasks.withLockedValue { $0[state.task.taskIdentifier] = state }
    }

    func unregister(_ state: OSSURLSessionTaskState) {
        _ = tasks.withLockedValue { $0.removeValue(forKey: state.task.taskIdentifier) }
    }

    private func state(for task: URLSessionTask) -> OSSURLSessionTaskState? {
        tasks.withLockedValue { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        state(for: task)?.didSend(totalBytesSent: totalBytesSent)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        state(for: dataTask)?.didReceive(response: http)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state(for: dataTask)?.didReceive(data: data)
    }

    func urlSession(_ session: URLSession, taskIsWaitingForConnectivity task: URLSessionTask) {
        state(for: task)?.onWaitingForConnectivity?()
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        _ = lifecycle.withLockedValue { $0.running.removeValue(forKey: task.taskIdentifier) }
        state(for: task)?.didComplete(error: error)
    }
}
