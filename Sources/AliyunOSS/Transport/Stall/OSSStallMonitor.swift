
/// Watches one request's bytes: when nothing moves in either direction for the stall timeout while the request is
/// waiting on the network, the request has stalled (a half-dead link, a proxy that stopped forwarding, a peer that
/// swallowed the body and will never answer).
///
/// Time spent waiting on the consumer (the caller reading the response body slowly) is not a stall: the reader
/// pauses the monitor while its buffer is full. While the request waits for its answer (its body sent, or no body,
/// and no response head yet: the server is working, the connection may still be being set up) the limit is twice
/// the stall timeout; once bytes stream, it is the stall timeout itself.
final class OSSStallMonitor: Sendable {
    private struct State {
        var lastActivity: ContinuousClock.Instant
        var pauses = 0
        var waitingForConnectivity = false
        var awaitingAnswer = false
        var stopped = false
    }

    private let state: OSSLockedValue<State>
    private let clock = ContinuousClock()

    /// `awaitingAnswer`: whether the request starts out waiting for its answer (it has no body to send).
    init(awaitingAnswer: Bool = false) {
        state = OSSLockedValue(State(lastActivity: ContinuousClock.now, awaitingAnswer: awaitingAnswer))
    }

    /// The whole request body was handed to the network: the request now waits for its answer.
    func bodySent() { touch(awaitingAnswer: true) }

    /// The response head arrived: the body streams from here.
    func answered() { touch(awaitingAnswer: false) }

    /// Bytes moved (a chunk was sent or received); `awaitingAnswer`, when given, is the request's new phase.
    func touch(awaitingAnswer: Bool? = nil) {
        let now = clock.now
        state.withLockedValue {
            $0.lastActivity = now
            $0.waitingForConnectivity = false
            if let awaitingAnswer { $0.awaitingAnswer = awaitingAnswer }
        }
    }

    /// The request waits for a network to appear (not a stall) until bytes move again.
    func waitForConnectivity() {
        state.withLockedValue { $0.waitingForConnectivity = true }
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
    ///
    /// Quiet time is counted tick by tick, each tick crediting at most twice its length: when the whole process was
    /// not running (an app suspended by the system, a machine too busy to schedule the watchdog or the task reading
    /// the response), the time it lost is not blamed on the connection.
    func waitForStall(after timeout: Duration) async -> Bool {
        let tick = min(max(timeout / 10, .milliseconds(10)), .milliseconds(500))
        var quiet: Duration = .zero
        var lastTick = clock.now
        var seenActivity = state.withLockedValue { $0.lastActivity }
        while !Task.isCancelled {
            do { try await Task.sleep(for: tick) } catch { return false }
            let now = clock.now
            let credit = min(now - lastTick, tick * 2)
            lastTick = now
            let (stopped, waiting, lastActivity, awaitingAnswer) = state.withLockedValue {
                ($0.stopped, $0.pauses > 0 || $0.waitingForConnectivity, $0.lastActivity, $0.awaitingAnswer)
            }
            if stopped { return false }
            if waiting {
                quiet = .zero
            } else if lastActivity != seenActivity {
                seenActivity = lastActivity
                quiet = min(now - lastActivity, credit)
            } else {
                quiet += credit
                if quiet >= (awaitingAnswer ? timeout * 2 : timeout) { return true }
            }
        }
        return false
    }
}
