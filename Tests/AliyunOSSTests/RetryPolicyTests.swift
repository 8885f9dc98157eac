@testable import AliyunOSS
import Foundation
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
    let retry = OSSClientConfiguration.Retry(maxRetryCount: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    func server(_ status: Int, _ code: String = "", fields: [String: String] = [:], headers: [String: String] = [:])
        -> OSSServerError
    {
        OSSServerError(statusCode: status, code: code, message: "", fields: fields, headers: headers)
    }

    @Test func retriesNetworkErrors5xxAnd429() {
        let policy = OSSRetryPolicy(configuration: retry, random: { 1 })
        #expect(policy.decision(for: OSSClientError(.networkError, "x"), attempt: 0, replayable: true) == .retry(after: .milliseconds(100)))
        #expect(policy.decision(for: server(503, "ServiceUnavailable"), attempt: 1, replayable: true) == .retry(after: .milliseconds(200)))
        #expect(policy.decision(for: server(429), attempt: 2, replayable: true) == .retry(after: .milliseconds(400)))
        #expect(policy.decision(for: server(500), attempt: 3, replayable: true) == .stop, "retry budget exhausted")
    }

    @Test func waitsAtLeastTheDelayTheServerNames() {
        let policy = OSSRetryPolicy(configuration: retry, random: { 1 })
        let qos = server(503, "TotalQpsLimitExceeded", headers: ["x-oss-qos-delay-time": "1500"])
        #expect(qos.serverRetryDelay == .milliseconds(1500))
        #expect(qos.isThrottling)
        // Longer than the backoff (100 ms) and than maxDelay (1 s): the server's delay wins.
        #expect(policy.decision(for: qos, attempt: 0, replayable: true) == .retry(after: .milliseconds(1500)))
        // Shorter than the backoff: the backoff wins.
        let short = server(503, "ServiceUnavailable", headers: ["x-oss-qos-delay-time": " 50 "])
        #expect(policy.decision(for: short, attempt: 1, replayable: true) == .retry(after: .milliseconds(200)))
        // Retry-After in seconds, used when there is no x-oss-qos-delay-time; capped at maxServerDelay (30 s).
        let after = server(429, headers: ["retry-after": "2"])
        #expect(after.serverRetryDelay == .seconds(2))
        #expect(policy.decision(for: after, attempt: 0, replayable: true) == .retry(after: .seconds(2)))
        let huge = server(503, headers: ["retry-after": "86400"])
        #expect(policy.decision(for: huge, attempt: 0, replayable: true) == .retry(after: .seconds(30)))
        // A plain 503 is not throttling (no client-wide pause); nonsense delays are ignored.
        #expect(!server(503, "ServiceUnavailable").isThrottling)
        #expect(server(503, headers: ["x-oss-qos-delay-time": "-5", "retry-after": "soon"]).serverRetryDelay == nil)
        #expect(server(503, "SlowDown").isThrottling)
        #expect(!server(500, headers: ["x-oss-qos-delay-time": "10"]).isThrottling)
    }

    @Test func doesNotRetryClientErrorsOrOneShotBodies() {
        let policy = OSSRetryPolicy(configuration: retry, random: { 1 })
        #expect(policy.decision(for: server(404, "NoSuchKey"), attempt: 0, replayable: true) == .stop)
        #expect(policy.decision(for: server(403, "SignatureDoesNotMatch"), attempt: 0, replayable: true) == .stop)
        #expect(policy.decision(for: OSSClientError(.invalidCRC, "x"), attempt: 0, replayable: true) == .stop)
        #expect(policy.decision(for: OSSClientError(.taskCancelled, "x"), attempt: 0, replayable: true) == .stop)
        #expect(policy.decision(for: server(503), attempt: 0, replayable: false) == .stop)
        #expect(policy.decision(for: CancellationError(), attempt: 0, replayable: true) == .stop)
    }

    @Test func fullJitterStaysWithinTheCappedExponential() {
        for value in [0.0, 0.25, 0.5, 1.0] {
            let policy = OSSRetryPolicy(configuration: retry, random: { value })
            for attempt in 0..<10 {
                let cap = min(1.0, 0.1 * Double(1 << attempt))
                let delay = policy.delay(attempt: attempt)
                let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
                #expect(abs(seconds - value * cap) < 1e-6)
            }
        }
    }

    @Test func clockSkewNeedsAServerTime() {
        let policy = OSSRetryPolicy(configuration: retry, random: { 1 })
        let withField = server(403, "RequestTimeTooSkewed", fields: ["ServerTime": "2024-01-15T08:30:45.000Z"])
        #expect(policy.decision(for: withField, attempt: 0, replayable: true) == .retryWithClockCorrection)
        let withHeader = server(403, "RequestTimeTooSkewed", headers: ["date": "Mon, 15 Jan 2024 08:30:45 GMT"])
        #expect(policy.decision(for: withHeader, attempt: 0, replayable: true) == .retryWithClockCorrection)
        #expect(policy.decision(for: server(403, "RequestTimeTooSkewed"), attempt: 0, replayable: true) == .stop)
    }

    @Test func clockSkewActorAppliesTheOffset() async {
        let local = Date(timeIntervalSince1970: 1_000_000)
        let clock = OSSClockSkew(localNow: { local })
        await clock.correct(serverTime: Date(timeIntervalSince1970: 1_003_600))
        #expect(await clock.now() == Date(timeIntervalSince1970: 1_003_600))
        #expect(await clock.offset == 3600)
    }
}
