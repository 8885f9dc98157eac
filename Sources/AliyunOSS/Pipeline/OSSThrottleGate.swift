/// The client-wide pause after the server throttled a request: every request of the client (first attempts and
/// retries alike, whatever transfer or part it belongs to) waits here until the pause is over, so that parallel
/// parts do not each run into the throttled server and retry into it again (a retry storm). The pause is the
/// longest any throttled answer asked for; it never shortens. Each pause is also told to `onPause` (the client's
/// scheduler, which lets fewer parts into flight for a while).
actor OSSThrottleGate {
    private var pausedUntil: ContinuousClock.Instant?
    /// How many throttled answers paused the client.
    private(set) var pauses = 0
    private let onPause: @Sendable () -> Void

    init(onPause: @escaping @Sendable () -> Void = {}) {
        self.onPause = onPause
    }

    /// Pauses every request of the client for at least `duration` from now.
    func pause(for duration: Duration) {
        let until = ContinuousClock.now + duration
        pauses += 1
        onPause()
        if let pausedUntil, pausedUntil >= until { return }
        pausedUntil = until
    }

    /// How long a request starting now has to wait; `nil` when the client is not paused.
    func remaining() -> Duration? {
        guard let pausedUntil else { return nil }
        let left = pausedUntil - ContinuousClock.now
        if left <= .zero {
            self.pausedUntil = nil
            return nil
        }
        return left
    }

    /// Waits while the client is paused (a pause extended meanwhile is waited for too, a bounded number of
    /// times). Throws `CancellationError` (through `sleeper`) when the task is cancelled.
    nonisolated func wait(using sleeper: any OSSSleeper) async throws {
        for _ in 0..<16 {
            guard let left = await remaining() else { return }
            try await sleeper.sleep(for: left)
        }
    }
}

/// The layer below retry: each attempt first waits out the client's pause, and a throttled answer that names a
/// delay (`x-oss-qos-delay-time`, `Retry-After`) pauses the client for it (capped at
/// ``OSSClientConfiguration/Retry/maxServerDelay``), also when this request then gives up.
struct OSSThrottleMiddleware: OSSMiddleware {
    let gate: OSSThrottleGate
    let sleeper: any OSSSleeper
    let maxServerDelay: Duration

    func handle<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
        next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        do {
            try await gate.wait(using: sleeper)
        } catch {
            throw OSSClientError.cancelled(error)
        }
        do {
            return try await next(request, context)
        } catch let server as OSSServerError where server.isThrottling {
            if let asked = server.serverRetryDelay {
                await gate.pause(for: min(asked, maxServerDelay))
            }
            throw server
        }
    }
}
