import NIOConcurrencyHelpers

/// Turns part completions (from the state machine) and the bytes of the parts in flight (from the GETs) into
/// one progress stream that never runs backwards: a retried part or a restart against a replaced object
/// lowers the running total, and nothing is reported until it passes the highest total already reported.
final class OSSResumableDownloadProgressTracker: Sendable {
    private struct State {
        /// Bytes of the completed parts (including the ones resumed from a record).
        var committed: Int64 = 0
        /// Bytes received so far by the current attempt of each part in flight.
        var inFlight: [Int: Int64] = [:]
        var expected: Int64 = 0
        var highWater: Int64 = 0
    }

    private let state = NIOLockedValueBox(State())
    private let handler: OSSProgressHandler?

    init(handler: OSSProgressHandler?) {
        self.handler = handler
    }

    /// The parts of a plan of `expected` bytes are about to be fetched.
    func begin(expected: Int64) {
        state.withLockedValue { $0.expected = expected }
    }

    /// A new attempt of `part` starts from its first byte.
    func startAttempt(part: Int) {
        guard handler != nil else { return }
        state.withLockedValue { $0.inFlight[part] = 0 }
    }

    /// `count` more bytes of `part` were written.
    func received(_ count: Int64, part: Int) {
        guard handler != nil else { return }
        state.withLockedValue { state in
            state.inFlight[part, default: 0] += count
            report(&state)
        }
    }

    /// `part` is no longer in flight (finished, failed or cancelled).
    func endAttempt(part: Int) {
        guard handler != nil else { return }
        state.withLockedValue { _ = $0.inFlight.removeValue(forKey: part) }
    }

    /// The completed parts now total `total` of `expected` bytes (as the state machine reports it).
    func committed(total: Int64, expected: Int64) {
        guard handler != nil else { return }
        state.withLockedValue { state in
            state.committed = total
            state.expected = expected
            report(&state)
        }
    }

    /// The download restarts from nothing (the object was replaced): in-flight and committed bytes are dropped.
    func reset() {
        state.withLockedValue { state in
            state.committed = 0
            state.inFlight = [:]
        }
    }

    /// Reports under the lock, so that reports reach the handler in increasing order.
    private func report(_ state: inout State) {
        guard let handler else { return }
        let total = state.committed + state.inFlight.values.reduce(0, +)
        guard total > state.highWater else { return }
        let step = total - state.highWater
        state.highWater = total
        handler(step, total, state.expected)
    }
}
