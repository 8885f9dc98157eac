
/// The same rule for downloads, where chunks arrive in the response body.
final class OSSDownloadProgress: Sendable {
    private struct State {
        var attemptBytes: Int64 = 0
        var highWater: Int64 = 0
    }

    private let state = OSSLockedValue(State())
    private let handler: OSSProgressHandler?

    init(handler: OSSProgressHandler?) {
        self.handler = handler
    }

    func startAttempt() {
        state.withLockedValue { $0.attemptBytes = 0 }
    }

    func advance(_ count: Int64, expected: Int64) {
        guard let handler else { return }
        let report: (Int64, Int64)? = state.withLockedValue { s in
            s.attemptBytes += count
            guard s.attemptBytes > s.highWater else { return nil }
            let delta = s.attemptBytes - s.highWater
            s.highWater = s.attemptBytes
            return (delta, s.highWater)
        }
        if let (delta, total) = report {
            handler(delta, total, expected)
        }
    }
}
