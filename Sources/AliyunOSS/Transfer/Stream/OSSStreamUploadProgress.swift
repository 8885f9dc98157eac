/// Adds up the bytes the parts of a stream upload send and forwards the growing total to the caller's handler,
/// one report at a time and in order. A part sent again (a retry) is silent until it passes the furthest point an
/// earlier attempt of it reached, so nothing is counted twice.
final class OSSStreamUploadProgress: Sendable {
    private struct State {
        var total: Int64 = 0
        /// Reports decided but not yet delivered, oldest first: (step, total).
        var pending: [(Int64, Int64)] = []
        /// Whether a caller is delivering `pending` (outside the lock).
        var delivering = false
    }

    private let state = OSSLockedValue(State())
    private let handler: OSSProgressHandler

    init(handler: @escaping OSSProgressHandler) {
        self.handler = handler
    }

    /// A part's progress handler: its per-request deltas (already monotonic across retries) feed the total.
    var partHandler: OSSProgressHandler {
        { [self] step, _, _ in add(step) }
    }

    private func add(_ step: Int64) {
        guard step > 0 else { return }
        let deliver = state.withLockedValue { state -> Bool in
            state.total += step
            state.pending.append((step, state.total))
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard deliver else { return }
        while true {
            let batch = state.withLockedValue { state -> [(Int64, Int64)] in
                let batch = state.pending
                state.pending = []
                if batch.isEmpty { state.delivering = false }
                return batch
            }
            if batch.isEmpty { return }
            for (step, total) in batch { handler(step, total, -1) }
        }
    }
}
