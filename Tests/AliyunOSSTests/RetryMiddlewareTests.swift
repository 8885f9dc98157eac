@testable import AliyunOSS
import Foundation
import Logging
import NIOConcurrencyHelpers
import Testing

/// Records the waits instead of sleeping; optionally fails like a cancelled `Task.sleep`.
struct RecordingSleeper: OSSSleeper {
    let waits = NIOLockedValueBox<[Duration]>([])
    var failWith: (any Error)?

    func sleep(for duration: Duration) async throws {
        waits.withLockedValue { $0.append(duration) }
        if let failWith { throw failWith }
    }
}

@Suite("Retry middleware with an injected sleeper")
struct RetryMiddlewareTests {
    func middleware(_ sleeper: RecordingSleeper, clock: OSSClockSkew = OSSClockSkew(), retries: Int = 3)
        -> OSSRetryMiddleware
    {
        OSSRetryMiddleware(
            policy: OSSRetryPolicy(
                configuration: .init(maxRetryCount: retries, baseDelay: .milliseconds(100), maxDelay: .seconds(10)),
                random: { 0.5 }),
            sleeper: sleeper, clock: clock, logger: Logger(label: "test"))
    }

    @Test func backsOffExponentiallyThenSucceeds() async throws {
        let sleeper = RecordingSleeper()
        let attempts = NIOLockedValueBox(0)
        let value = try await middleware(sleeper).run(operation: "Op", replayable: true) { attempt in
            attempts.withLockedValue { $0 += 1 }
            if attempt < 2 { throw OSSServerError(statusCode: 503, code: "ServiceUnavailable", message: "") }
            return "done"
        }
        #expect(value == "done")
        #expect(attempts.withLockedValue { $0 } == 3)
        #expect(sleeper.waits.withLockedValue { $0 } == [.milliseconds(50), .milliseconds(100)])
    }

    @Test func stopsAfterTheBudgetWithTheLastError() async throws {
        let sleeper = RecordingSleeper()
        let attempts = NIOLockedValueBox(0)
        do {
            _ = try await middleware(sleeper, retries: 2).run(operation: "Op", replayable: true) { _ -> Int in
                attempts.withLockedValue { $0 += 1 }
                throw OSSClientError(.networkError, "reset")
            }
            Issue.record("expected an error")
        } catch let error as OSSClientError {
            #expect(error.code == .networkError)
        }
        #expect(attempts.withLockedValue { $0 } == 3)
        #expect(sleeper.waits.withLockedValue { $0 }.count == 2)
    }

    @Test func nonReplayableBodiesAndClientErrorsAreNotRetried() async throws {
        let sleeper = RecordingSleeper()
        let attempts = NIOLockedValueBox(0)
        _ = try? await middleware(sleeper).run(operation: "Op", replayable: false) { _ -> Int in
            attempts.withLockedValue { $0 += 1 }
            throw OSSServerError(statusCode: 500, code: "InternalError", message: "")
        }
        _ = try? await middleware(sleeper).run(operation: "Op", replayable: true) { _ -> Int in
            attempts.withLockedValue { $0 += 1 }
            throw OSSServerError(statusCode: 404, code: "NoSuchKey", message: "")
        }
        #expect(attempts.withLockedValue { $0 } == 2)
        #expect(sleeper.waits.withLockedValue { $0 }.isEmpty)
    }

    @Test func clockSkewIsCorrectedWithoutSleeping() async throws {
        let sleeper = RecordingSleeper()
        let local = Date(timeIntervalSince1970: 1_700_000_000)
        let clock = OSSClockSkew(localNow: { local })
        let seen = NIOLockedValueBox<[Date]>([])
        let value = try await middleware(sleeper, clock: clock).run(operation: "Op", replayable: true) { attempt in
            seen.withLockedValue { $0.append(local) }
            if attempt == 0 {
                throw OSSServerError(
                    statusCode: 403, code: "RequestTimeTooSkewed", message: "",
                    fields: ["ServerTime": "2023-11-14T23:13:20.000Z"])
            }
            return await clock.now()
        }
        #expect(value == Date(timeIntervalSince1970: 1_700_003_600))
        #expect(await clock.offset == 3600)
        #expect(sleeper.waits.withLockedValue { $0 }.isEmpty)
    }

    @Test func cancelledSleepIsTaskCancelled() async throws {
        var sleeper = RecordingSleeper()
        sleeper.failWith = CancellationError()
        let code = await clientErrorCode {
            _ = try await middleware(sleeper).run(operation: "Op", replayable: true) { _ -> Int in
                throw OSSServerError(statusCode: 503, code: "", message: "")
            }
        }
        #expect(code == .taskCancelled)
    }

    @Test func foreignErrorsBecomeClientErrors() async throws {
        struct Odd: Error {}
        let code = await clientErrorCode {
            _ = try await middleware(RecordingSleeper()).run(operation: "Op", replayable: true) { _ -> Int in
                throw Odd()
            }
        }
        #expect(code == .exceptionCaught)
        let cancelled = await clientErrorCode {
            _ = try await middleware(RecordingSleeper()).run(operation: "Op", replayable: true) { _ -> Int in
                throw CancellationError()
            }
        }
        #expect(cancelled == .taskCancelled)
    }
}
