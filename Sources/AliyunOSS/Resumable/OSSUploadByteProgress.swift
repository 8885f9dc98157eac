import NIOConcurrencyHelpers

/// How often a resumable upload reports progress.
public enum OSSUploadProgressGranularity: String, Sendable, Hashable {
    /// One report per part the server confirmed (the default): the total is what the server holds.
    case confirmedParts
    /// Reports as the bytes of each part are handed to the network, so the bar moves while big parts are in
    /// flight. The total counts the confirmed parts plus what the parts in flight have sent; it never runs
    /// backwards, never exceeds the file size, and a part sent again (after a CRC disagreement or a network
    /// retry) is not counted twice. After a pause the server may hold less than the last report said; a resumed
    /// run starts from what it holds.
    case bytesSent
}

/// Combines the confirmed bytes of a resumable upload with the bytes its parts in flight have sent, and forwards
/// the growing total to the request's progress handler, one report at a time and in order.
final class OSSUploadByteProgress: Sendable {
    private struct State {
        /// The bytes of the parts the state machine confirmed (reused parts included).
        var confirmed: Int64 = 0
        /// For each part sent but not confirmed: the most bytes any of its attempts handed to the network.
        var inFlight: [Int: Int64] = [:]
        /// The highest total reported.
        var reported: Int64 = 0
    }

    private let state = NIOLockedValueBox(State())
    private let handler: OSSProgressHandler

    init(handler: @escaping OSSProgressHandler) {
        self.handler = handler
    }

    /// Part `number` (of `length` bytes) has sent `bytes` bytes in its current attempt.
    func partSent(number: Int, bytes: Int64, length: Int64, expected: Int64) {
        update(expected: expected) { state in
            state.inFlight[number] = max(state.inFlight[number] ?? 0, min(bytes, length))
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

    /// A new multipart upload replaces a vanished one: its parts are sent from scratch. What was reported stays
    /// reported (nothing is said until the new upload passes it).
    func restart() {
        state.withLockedValue { state in
            state.confirmed = 0
            state.inFlight = [:]
        }
    }

    /// Applies `change` and reports the new total if it passed the last one. The handler runs under the lock, so
    /// reports arrive one at a time, in increasing order.
    private func update(expected: Int64, _ change: (inout State) -> Void) {
        state.withLockedValue { state in
            change(&state)
            let total = min(state.confirmed + state.inFlight.values.reduce(0, +), expected)
            guard total > state.reported else { return }
            let step = total - state.reported
            state.reported = total
            handler(step, total, expected)
        }
    }
}
