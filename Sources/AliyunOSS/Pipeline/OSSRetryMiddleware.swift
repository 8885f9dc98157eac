import Logging

/// The outermost layer: runs an attempt, and on a retryable failure waits (exponential backoff with full
/// jitter) or corrects the clock, then runs the attempt again. Only replayable bodies are retried.
/// Cancellation always ends the loop with `.taskCancelled`.
///
/// Credentials the server rejects (403 `InvalidAccessKeyId`, `SecurityTokenExpired`, ...) are refreshed once
/// when they came from an ``OSSRefreshingCredentialProvider`` or a provider backed by one (every refreshing provider
/// of the SDK, the profile and default-chain providers that resolved to one), and the attempt is sent again at once, re-signed;
/// see ``OSSCredentialRefreshContext``.
///
/// A throttled answer (429, or 503 with a throttling code or a delay to wait; see
/// ``OSSServerError/isThrottling``) that the policy retries pauses the whole client through ``throttle`` instead
/// of sleeping on its own: ``OSSThrottleMiddleware``, the next layer, holds every request of the client (this one
/// included) until the pause is over.
struct OSSRetryMiddleware: OSSMiddleware {
    let policy: OSSRetryPolicy
    let sleeper: any OSSSleeper
    let clock: OSSClockSkew
    let logger: Logger
    /// The client-wide pause shared by every request of one client.
    let throttle: OSSThrottleGate

    init(
        policy: OSSRetryPolicy, sleeper: any OSSSleeper, clock: OSSClockSkew, logger: Logger,
        throttle: OSSThrottleGate = OSSThrottleGate()
    ) {
        self.policy = policy
        self.sleeper = sleeper
        self.clock = clock
        self.logger = logger
        self.throttle = throttle
    }

    func handle<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
        next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        try await run(operation: context.operation, replayable: request.prepared.body.isReplayable) { attempt in
            var context = context
            context.attempt = attempt + 1
            context.record.startAttempt(attempt + 1)
            return try await next(request, context)
        }
    }

    /// The loop: `body` runs with the attempt number from 0.
    func run<Result: Sendable>(
        operation: String, replayable: Bool, attempt body: (_ attempt: Int) async throws -> Result
    ) async throws -> Result {
        let context = OSSCredentialRefreshContext()
        return try await OSSCredentialRefreshContext.$current.withValue(context) {
            try await loop(operation: operation, replayable: replayable, context: context, attempt: body)
        }
    }

    private func loop<Result: Sendable>(
        operation: String, replayable: Bool, context: OSSCredentialRefreshContext,
        attempt body: (_ attempt: Int) async throws -> Result
    ) async throws -> Result {
        var attempt = 0
        while true {
            if Task.isCancelled { throw OSSClientError.cancelled() }
            do {
                return try await body(attempt)
            } catch let wrapped as OSSNonRetryableFailure {
                throw wrapped.error
            } catch {
                let error = Self.publicError(error)
                if let client = error as? OSSClientError, client.code == .taskCancelled { throw client }
                if Task.isCancelled { throw OSSClientError.cancelled(error) }
                if replayable, OSSCredentialRefreshContext.isCredentialRejection(error),
                    let signing = context.takeRefresh()
                {
                    let invalidated = await signing.provider.invalidate(rejectedEpoch: signing.epoch)
                    logger.debug(
                        "credentials rejected; retrying with refreshed credentials",
                        metadata: [
                            "operation": "\(operation)", "attempt": "\(attempt + 1)",
                            "code": "\((error as? OSSServerError)?.code ?? "")",
                            "refresh": "\(invalidated ? "started" : "shared")",
                        ])
                    continue
                }
                switch policy.decision(for: error, attempt: attempt, replayable: replayable) {
                case .stop:
                    throw error
                case .retryWithClockCorrection:
                    if let server = error as? OSSServerError, let serverTime = OSSClockSkew.serverTime(from: server) {
                        await clock.correct(serverTime: serverTime)
                    }
                    logger.debug(
                        "clock skew corrected; retrying",
                        metadata: ["operation": "\(operation)", "attempt": "\(attempt + 1)"])
                case .retry(let delay) where (error as? OSSServerError)?.isThrottling == true:
                    // Throttled: the whole client pauses, this request with it (it waits at the top of the loop).
                    await throttle.pause(for: delay)
                    logger.debug(
                        "throttled; pausing the client",
                        metadata: [
                            "operation": "\(operation)", "attempt": "\(attempt + 1)",
                            "code": "\((error as? OSSServerError)?.code ?? "")", "delay": "\(delay)",
                        ])
                case .retry(let delay):
                    logger.debug(
                        "retrying after failure",
                        metadata: ["operation": "\(operation)", "attempt": "\(attempt + 1)", "error": "\(error)"])
                    do {
                        try await sleeper.sleep(for: delay)
                    } catch {
                        throw OSSClientError.cancelled(error)
                    }
                }
                attempt += 1
            }
        }
    }

    /// Every error leaving the pipeline is an ``OSSClientError`` or an ``OSSServerError``.
    static func publicError(_ error: any Error) -> any Error {
        OSSClientError.passing(error) { OSSClientError(.exceptionCaught, "unexpected error: \($0)", underlying: $0) }
    }
}

/// Wraps an error that must not be retried (e.g. a network failure after the caller started consuming a body).
struct OSSNonRetryableFailure: Error {
    let error: any Error
}

/// Waits between retry attempts. Injectable so retry tests do not sleep.
protocol OSSSleeper: Sendable {
    /// Sleeps, throwing `CancellationError` if the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// Sleeps with `Task.sleep`; cancellation is never swallowed.
struct OSSTaskSleeper: OSSSleeper {
    func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
