import NIOConcurrencyHelpers

/// Watches one request's bytes: when nothing moves in either direction for the stall timeout while the request is
/// waiting on the network, the request has stalled (a half-dead link, a proxy that stopped forwarding, a peer that
/// swallowed the body and will never answer).
///
/// Time spent waiting on the consumer (the caller reading the response body slowly) is not a stall: the reader
/// pauses the monitor while its buffer is full.
final class OSSStallMonitor: Sendable {
    private struct State {
        var lastActivity: ContinuousClock.Instant
        var pauses = 0
        var stopped = false
    }

    private let state: NIOLockedValueBox<State>
    private let clock = ContinuousClock()

    init() {
        state = NIOLockedValueBox(State(lastActivity: ContinuousClock.now))
    }

    /// Bytes moved (a chunk was sent or received, or the response head arrived).
    func touch() {
        let now = clock.now
        state.withLockedValue { $0.lastActivity = now }
    }

    /// The request waits on its consumer, not on the network, until ``resume()``.
    func pause() {
        state.withLockedValue { $0.pauses += 1 }
    }

    /// The request waits on the network again; the stall clock restarts.
    func resume() {
        let now = clock.now
        state.withLockedValue {
            $0.pauses = max(0, $0.pauses - 1)
            $0.lastActivity = now
        }
    }

    /// The exchange is over: ``waitForStall(after:)`` returns `false`.
    func stop() {
        state.withLockedValue { $0.stopped = true }
    }

    /// Waits until the request stalls (`true`), or until it is over or the waiting task is cancelled (`false`).
    func waitForStall(after timeout: Duration) async -> Bool {
        let tick = min(max(timeout / 10, .milliseconds(10)), .milliseconds(500))
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return false }
            let now = clock.now
            let verdict: Bool? = state.withLockedValue { state in
                if state.stopped { return false }
                if state.pauses > 0 { return nil }
                return now - state.lastActivity >= timeout ? true : nil
            }
            if let verdict { return verdict }
        }
        return false
    }
}
