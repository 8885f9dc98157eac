import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// The `throttle=MS` fault: 503 with `x-oss-qos-delay-time` / `Retry-After`, and a window in which every request
/// the rule matches is refused the same way (with the time left), counted in the stats.
@Suite struct ThrottleFaultTests {
    @Test func parsesAndPrints() throws {
        let rule = try LocalOSSFaultRule(parsing: "*:random=0.05:seed=7:throttle=200")
        #expect(rule.action == .throttle(milliseconds: 200, code: nil))
        let coded = try LocalOSSFaultRule(parsing: "GetObject:nth=2:throttle=50:code=DownloadTrafficRateLimitExceeded")
        #expect(coded.action == .throttle(milliseconds: 50, code: "DownloadTrafficRateLimitExceeded"))
        for text in [rule.description, coded.description] {
            #expect(try LocalOSSFaultRule(parsing: text).description == text)
        }
        for bad in ["PutObject:throttle=0", "PutObject:throttle=600001", "PutObject:throttle=5:status=503",
                    "PutObject:throttle=5:drop=1", "PutObject:throttle=x"] {
            #expect(throws: LocalOSSFaultRuleError.self, "\(bad)") { try LocalOSSFaultRule(parsing: bad) }
        }
    }

    @Test func windowRefusesEveryMatchingRequestUntilItCloses() async throws {
        let rule = try LocalOSSFaultRule(parsing: "PutObject:nth=1:throttle=400")
        try await withLocalOSSServer(.init(buckets: ["throttle"], faults: [rule])) { server in
            let client = TestClient(server)
            let first = try await client.send("PUT", bucket: "throttle", key: "a", body: [1])
            #expect(first.status == 503)
            #expect(first.errorCode == "TotalQpsLimitExceeded")
            #expect(first.header("x-oss-qos-delay-time") == "400")
            #expect(first.header("Retry-After") == "1")
            // Inside the window: refused with what is left of it; other operations pass.
            let second = try await client.send("PUT", bucket: "throttle", key: "b", body: [2])
            #expect(second.status == 503)
            let left = try #require(second.header("x-oss-qos-delay-time").flatMap(Int.init))
            #expect(left >= 1 && left <= 400)
            #expect(try await client.send("GET", bucket: "throttle", key: "a").status == 404)
            // Once the window closed (waited for as the server asked), the rule's nth=1 does not fire again.
            try await Task.sleep(for: .milliseconds(left + 20))
            #expect(try await client.send("PUT", bucket: "throttle", key: "c", body: [3]).status == 200)
            let stats = await server.stats()
            #expect(stats.throttleWindows == 1)
            #expect(stats.throttledRequests == 2)
            #expect(stats[.putObject].requests == 3)
        }
    }
}
