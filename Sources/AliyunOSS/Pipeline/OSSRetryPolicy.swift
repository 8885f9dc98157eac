/// What to do after a failed attempt.
enum OSSRetryDecision: Sendable, Equatable {
    /// Try again after waiting.
    case retry(after: Duration)
    /// Correct the clock from the server's time and try again at once.
    case retryWithClockCorrection
    /// Give up and throw the error.
    case stop
}

/// Exponential backoff with full jitter on every error whose ``OSSErrorDisposition`` is `retryable` (network
/// errors, 5xx, 429, throttling, `InvalidDigest`, `RequestTimeout`); `RequestTimeTooSkewed` retries once the clock
/// is corrected. A delay the server names (`x-oss-qos-delay-time`, `Retry-After`) is waited for at
/// least, up to ``OSSClientConfiguration/Retry/maxServerDelay``. Pure: the random source is injected.
struct OSSRetryPolicy: Sendable {
    let configuration: OSSClientConfiguration.Retry
    /// Returns a uniformly distributed value in `0...1`.
    let random: @Sendable () -> Double

    init(configuration: OSSClientConfiguration.Retry, random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }) {
        self.configuration = configuration
        self.random = random
    }

    /// - Parameters:
    ///   - attempt: the number of the attempt that failed, from 0.
    ///   - replayable: whether the request body can be sent again.
    func decision(for error: any Error, attempt: Int, replayable: Bool) -> OSSRetryDecision {
        guard replayable, attempt < configuration.maxRetryCount else { return .stop }
        guard Self.isRetryable(error) else { return .stop }
        if let server = error as? OSSServerError, server.code == "RequestTimeTooSkewed" {
            return OSSClockSkew.serverTime(from: server) != nil ? .retryWithClockCorrection : .stop
        }
        let backoff = delay(attempt: attempt)
        if let server = error as? OSSServerError, let asked = server.serverRetryDelay {
            // The server said how long to wait: at least that (up to maxServerDelay), never less than the backoff.
            return .retry(after: max(backoff, min(asked, configuration.maxServerDelay)))
        }
        return .retry(after: backoff)
    }

    /// Full jitter: a random wait in `0...min(maxDelay, baseDelay * 2^attempt)`.
    func delay(attempt: Int) -> Duration {
        let base = configuration.baseDelay.timeInterval
        let cap = configuration.maxDelay.timeInterval
        let exponential = min(cap, base * Double(1 << min(attempt, 30)))
        let seconds = max(0, min(1, random())) * exponential
        return .nanoseconds(Int64(seconds * 1e9))
    }

    /// Whether the error is worth another attempt: its ``OSSErrorDisposition`` is `retryable`.
    static func isRetryable(_ error: any Error) -> Bool {
        OSSErrorDisposition(error) == .retryable
    }
}
