import OSSResumable

/// How often a resumable transfer reports progress.
public enum OSSTransferProgressGranularity: String, Sendable, Hashable {
    /// One report per confirmed part (the default): a part the server acknowledged (upload), or written to the
    /// temporary file (download; its record is saved right behind it). The total is what a resume keeps.
    case confirmedParts
    /// Also reports as each part's bytes go out (upload) or come in (download), every chunk of up to 1 MiB, so
    /// the bar moves while big parts are in flight. The total counts the confirmed parts plus what the parts in
    /// flight have moved; it never runs backwards, never exceeds the total expected, and a part transferred again
    /// (a CRC disagreement, a network retry) is not counted twice. After a pause less may be kept than the last
    /// report said; a resumed run starts from what was kept.
    case bytes
}

/// Combines the confirmed bytes of a resumable transfer with the bytes its parts in flight have moved, and
/// forwards the growing total to the request's progress handler, one report at a time and in order.
final class OSSTransferByteProgress: Sendable {
    private struct State {
        /// The bytes of the parts the state machine confirmed (reused parts included).
        var confirmed: Int64 = 0
        /// For each part in flight (not confirmed): the most bytes any of its attempts moved.
        var inFlight: [Int: Int64] = [:]
        /// The highest total reported.
        var reported: Int64 = 0
        /// Reports decided but not yet delivered, oldest first: (step, total, expected).
        var pending: [(Int64, Int64, Int64)] = []
        /// Whether a caller is delivering `pending` (outside the lock).
        var delivering = false
    }

    private let state = OSSLockedValue(State())
    private let handler: OSSProgressHandler

    init(handler: @escaping OSSProgressHandler) {
        self.handler = handler
    }

    /// Part `number` (of `length` bytes) has moved `bytes` bytes in its current attempt.
    func partMoved(number: Int, bytes: Int64, length: Int64, expected: Int64) {
        update(expected: expected) { state in
            state.inFlight[number] = max(state.inFlight[number] ?? 0, min(bytes, length))
        }
    }

    /// The callback for the progress of `part` (bytes moved in its current attempt), feeding `progress`; `nil`
    /// without one.
    static func callback(
        _ progress: OSSTransferByteProgress?, part: OSSPart, expected: Int64
    ) -> (@Sendable (Int64) -> Void)? {
        guard let progress else { return nil }
        return { moved in
            progress.partMoved(number: part.number, bytes: moved, length: part.length, expected: expected)
        }
    }

    /// Part `number` was confirmed: its bytes now count through ``confirmed(total:expected:)``.
    func partConfirmed(number: Int) {
        _ = state.withLockedValue { $0.inFlight.removeValue(forKey: number) }
    }

    /// The state machine's confirmed total (its `reportProgress`).
    func confirmed(total: Int64, expected: Int64) {
        update(expected: expected) { $0.confirmed = total }
    }

    /// A new multipart upload replaces a vanished one, or a download starts over against a replaced object: the
    /// parts move from scratch. What was reported stays
    /// reported (nothing is said until the new upload passes it).
    func restart() {
        state.withLockedValue { state in
            state.confirmed = 0
            state.inFlight = [:]
        }
    }

    /// Applies `change` and reports the new total if it passed the last one. Reports are queued under the lock
    /// and delivered outside it, by one caller at a time (whoever finds nobody delivering drains the queue), so
    /// the handler never runs under a lock and its reports arrive one at a time, in increasing order.
    private func update(expected: Int64, _ change: (inout State) -> Void) {
        let deliver = state.withLockedValue { state -> Bool in
            change(&state)
            let total = min(state.confirmed + state.inFlight.values.reduce(0, +), expected)
            if total > state.reported {
                state.pending.append((total - state.reported, total, expected))
                state.reported = total
            }
            guard !state.delivering, !state.pending.isEmpty else { return false }
            state.delivering = true
            return true
        }
        guard deliver else { return }
        while true {
            let batch = state.withLockedValue { state -> [(Int64, Int64, Int64)] in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.delivering = false }
                return batch
            }
            if batch.isEmpty { return }
            for (step, total, expected) in batch {
                handler(step, total, expected)
            }
        }
    }
}
