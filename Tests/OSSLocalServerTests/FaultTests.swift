import AsyncHTTPClient
import Foundation
import OSSLocalServer
import OSSSigning
import Testing

@Suite struct FaultTests {
    @Test func parsesTheTextualSyntax() throws {
        let rule = try LocalOSSFaultRule(parsing: "UploadPart:nth=3:status=503")
        #expect(rule == LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(3), action: .status(503, code: nil)))
        let random = try LocalOSSFaultRule(parsing: "*:random=0.25:seed=7:status=500:code=InternalError:times=2")
        #expect(random.operation == nil)
        #expect(random.trigger == .random(rate: 0.25, seed: 7))
        #expect(random.action == .status(500, code: "InternalError"))
        #expect(random.times == 2)
        #expect(try LocalOSSFaultRule(parsing: "getobject:drop=100").action == .dropConnection(afterBytes: 100))
        #expect(try LocalOSSFaultRule(parsing: "any:every=2:delay=10").trigger == .everyNth(2))
        #expect(try LocalOSSFaultRule(parsing: "PutObject:skew=-3600").action == .clockSkew(seconds: -3600))
        #expect(try LocalOSSFaultRule(parsing: "UploadPart:nth=2:corrupt=7").action == .corrupt(atByte: 7))
        #expect(try LocalOSSFaultRule(parsing: "GetObject:corrupt=0").description == "GetObject:always:corrupt=0")
        for text in [random.description, rule.description] {
            #expect(try LocalOSSFaultRule(parsing: text).description == text)
        }
        for bad in ["", "NoSuchOp:status=500", "PutObject", "PutObject:nth=0:status=500", "PutObject:status=99",
                    "PutObject:random=2:status=500", "PutObject:status=500:drop=1", "PutObject:bogus=1",
                    "PutObject:corrupt=-1", "PutObject:corrupt=1:drop=2"] {
            #expect(throws: LocalOSSFaultRuleError.self, "\(bad)") { try LocalOSSFaultRule(parsing: bad) }
        }
        let json = try JSONEncoder().encode(random)
        #expect(try JSONDecoder().decode(LocalOSSFaultRule.self, from: json) == random)
    }

    @Test func statusFaultOnTheNthRequestAndCounters() async throws {
        let rule = try LocalOSSFaultRule(parsing: "UploadPart:nth=2:status=503")
        try await withLocalOSSServer(.init(buckets: ["faults"], faults: [rule])) { server in
            let client = TestClient(server)
            let initiated = try await client.send("POST", bucket: "faults", key: "k", query: ["uploads": ""])
            let id = try #require(xmlValue("UploadId", in: initiated.text))
            var statuses: [Int] = []
            for n in 1...3 {
                let r = try await client.send(
                    "PUT", bucket: "faults", key: "k", query: ["partNumber": String(n), "uploadId": id],
                    body: randomBytes(1000))
                statuses.append(r.status)
                if r.status == 503 { #expect(r.errorCode == "ServiceUnavailable") }
            }
            #expect(statuses == [200, 503, 200])
            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 3)
            #expect(stats[.uploadPart].requestBodyBytes == 3000)
            #expect(stats[.initiateMultipartUpload].requests == 1)
            #expect(stats.faultsInjected == 1)
            await server.resetStats()
            #expect(await server.stats().total.requests == 0)
        }
    }

    @Test func dropsUploadsAndDownloadsAfterNBytes() async throws {
        try await withLocalOSSServer(.init(buckets: ["faults"])) { server in
            let client = TestClient(server)
            let data = randomBytes(300_000)
            #expect(try await client.send("PUT", bucket: "faults", key: "obj", body: data).status == 200)
            await server.resetStats()

            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:drop=1000"))
            await #expect(throws: (any Error).self) {
                _ = try await client.send("GET", bucket: "faults", key: "obj")
            }
            #expect(try await client.send("GET", bucket: "faults", key: "obj").body == data)
            var stats = await server.stats()
            #expect(stats[.getObject].responseBodyBytes == 1000 + 300_000)

            await server.addFault(LocalOSSFaultRule(operation: .putObject, trigger: .always, action: .dropConnection(afterBytes: 5000), times: 1))
            await #expect(throws: (any Error).self) {
                _ = try await client.send("PUT", bucket: "faults", key: "partial", body: data)
            }
            stats = await server.stats()
            #expect(stats[.putObject].requestBodyBytes == 5000)
            #expect(stats.faultsInjected == 2)
            #expect(try await client.send("HEAD", bucket: "faults", key: "partial").status == 404)
            #expect(try await client.send("PUT", bucket: "faults", key: "partial", body: data).status == 200)
        }
    }

    @Test func corruptFlipsOneBitOfTheRequestOrResponseBody() async throws {
        try await withLocalOSSServer(.init(buckets: ["faults"])) { server in
            let client = TestClient(server)
            let data = randomBytes(300_000)
            // Upload: the server stores (and hashes) the damaged bytes, as bit rot on the wire would leave them.
            await server.addFault(try LocalOSSFaultRule(parsing: "PutObject:nth=1:corrupt=123456"))
            #expect(try await client.send("PUT", bucket: "faults", key: "rot", body: data).status == 200)
            var damaged = data
            damaged[123_456] ^= 0x01
            #expect(try await client.send("GET", bucket: "faults", key: "rot").body == damaged)
            // Download: the stored object is intact; one response carries a flipped bit beyond the first chunk.
            #expect(try await client.send("PUT", bucket: "faults", key: "ok", body: data).status == 200)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:corrupt=299999"))
            var flipped = data
            flipped[299_999] ^= 0x01
            #expect(try await client.send("GET", bucket: "faults", key: "ok").body == flipped)
            #expect(try await client.send("GET", bucket: "faults", key: "ok").body == data)
            // An offset past the end of the body changes nothing.
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:corrupt=300000"))
            #expect(try await client.send("GET", bucket: "faults", key: "ok").body == data)
        }
    }

    @Test func clockSkewAndDelayFaults() async throws {
        try await withLocalOSSServer(.init(buckets: ["faults"])) { server in
            let client = TestClient(server, version: .v4)
            await server.addFault(try LocalOSSFaultRule(parsing: "*:skew=3600:times=1"))
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:delay=20"))
            let skewed = try await client.send("PUT", bucket: "faults", key: "k", body: [1])
            #expect(skewed.status == 403 && skewed.errorCode == "RequestTimeTooSkewed")
            let serverTime = try #require(xmlValue("ServerTime", in: skewed.text).flatMap(OSSDateFormat.parseISO8601))
            #expect(serverTime.timeIntervalSinceNow > 3000)
            #expect(try await client.send("PUT", bucket: "faults", key: "k", body: [1]).status == 200)
            #expect(try await client.send("GET", bucket: "faults", key: "k").body == [1])
            await server.clearFaults()
            #expect(await server.faults().isEmpty)
        }
    }

    @Test func adminEndpoints() async throws {
        try await withLocalOSSServer(.init(buckets: ["faults"])) { server in
            let client = TestClient(server)
            let base = server.endpoint.absoluteString
            let added = try await client.execute("POST", url: base + "/-/faults", body: Array("PutObject:nth=1:status=500".utf8))
            #expect(added.status == 200, "\(added.text)")
            #expect(try await client.send("PUT", bucket: "faults", key: "k", body: [1]).status == 500)
            let stats = try await client.execute("GET", url: base + "/-/stats")
            let decoded = try JSONDecoder().decode(LocalOSSServerStats.self, from: Data(stats.body))
            #expect(decoded[.putObject].requests == 1 && decoded.faultsInjected == 1)
            let bad = try await client.execute("POST", url: base + "/-/faults", body: Array("Nope:status=1".utf8))
            #expect(bad.status == 400)
            #expect(try await client.execute("DELETE", url: base + "/-/faults").status == 204)
            #expect(try await client.execute("POST", url: base + "/-/stats/reset").status == 204)
            #expect(await server.stats().total.requests == 0)  // admin requests are not counted
        }
        try await withLocalOSSServer(.init(adminEnabled: false)) { server in
            let r = try await TestClient(server).execute("GET", url: server.endpoint.absoluteString + "/-/stats")
            #expect(r.status != 200)
        }
    }
}

extension FaultTests {
    @Test func dropReplyHandlesTheRequestThenLosesTheAnswer() async throws {
        let rule = try LocalOSSFaultRule(parsing: "CompleteMultipartUpload:nth=1:dropreply")
        #expect(rule == LocalOSSFaultRule(operation: .completeMultipartUpload, trigger: .nth(1), action: .dropReply))
        #expect(rule.description == "CompleteMultipartUpload:nth=1:dropreply")
        #expect(try LocalOSSFaultRule(parsing: rule.description) == rule)
        for bad in ["PutObject:dropreply=3", "PutObject:dropreply:status=500", "PutObject:drop=1:dropreply"] {
            #expect(throws: LocalOSSFaultRuleError.self, "\(bad)") { try LocalOSSFaultRule(parsing: bad) }
        }
        try await withLocalOSSServer(.init(buckets: ["faults"])) { server in
            let client = TestClient(server)
            let data = randomBytes(200_000)
            await server.addFault(try LocalOSSFaultRule(parsing: "PutObject:nth=1:dropreply"))
            await #expect(throws: (any Error).self) {
                _ = try await client.send("PUT", bucket: "faults", key: "stored", body: data)
            }
            // The answer was lost, the request was not: the object is there.
            #expect(try await client.send("GET", bucket: "faults", key: "stored").body == data)
            let stats = await server.stats()
            #expect(stats.faultsInjected == 1)
            #expect(stats[.putObject].requestBodyBytes == 200_000)
        }
    }
}
