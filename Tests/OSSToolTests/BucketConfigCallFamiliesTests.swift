import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss bucket-config` for the families with calls of their own (replication, cname, access points and their
/// policies, redundancy transition, meta query, policy status), and `oss stat`'s policy line, against the local
/// server.
@Suite("oss bucket-config: families with calls of their own")
struct BucketConfigCallFamiliesTests {
    /// Runs `body` with a tool and a client on a fresh local server holding `buckets`.
    private func withTool(
        _ buckets: [String], _ configure: (inout LocalOSSServerConfiguration) -> Void = { _ in },
        _ body: (ToolRunner, URL, OSSClient) async throws -> Void
    ) async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        var configuration = LocalOSSServerConfiguration(buckets: buckets)
        configure(&configuration)
        try await withLocalOSSServer(configuration) { server in
            try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
                try await body(ToolRunner(server: server, home: work), work, client)
            }
        }
    }

    private func file(_ work: URL, _ name: String, _ text: String) throws -> String {
        let url = work.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func replicationRulesAreAddedListedFollowedAndDeleted() async throws {
        try await withTool(["src", "dst", "dst2"]) { tool, work, client in
            let xml = try file(work, "rule.xml", """
                <ReplicationConfiguration><Rule><ID>r1</ID><PrefixSet><Prefix>logs/</Prefix></PrefixSet><Action>PUT</Action>
                <Destination><Bucket>dst</Bucket><Location>oss-cn-beijing</Location></Destination></Rule></ReplicationConfiguration>
                """)
            var r = try await tool.run(["bucket-config", "oss://src", "replication", "put", xml])
            #expect(r.status == 0 && r.stdout == "r1\n", "\(r.stdout) \(r.stderr)")
            let json = try file(work, "rule.json", #"{"Rule": {"Destination": {"Bucket": "dst2", "Location": "oss-cn-shanghai"}}}"#)
            r = try await tool.run(["bucket-config", "oss://src", "replication", "put", json])
            let assigned = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(r.status == 0 && !assigned.isEmpty, "OSS names a rule that has no ID: \(r.stderr)")

            r = try await tool.run(["bucket-config", "oss://src", "replication"])
            #expect(r.status == 0 && r.stdout.contains("<ID>r1</ID>") && r.stdout.contains("<Prefix>logs/</Prefix>"), "\(r.stdout)")
            #expect(r.stdout.contains("<Bucket>dst2</Bucket>") && r.stdout.contains("<ID>\(assigned)</ID>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://src", "replication", "get", "--json"])
            #expect(r.stdout.contains(#""ID" : "r1""#) && r.stdout.contains(#""Location" : "oss-cn-beijing""#), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://src", "replication", "progress", "--name", "r1"])
            #expect(r.status == 0 && r.stdout.contains("<ReplicationProgress><Rule><ID>r1</ID>") && r.stdout.contains("<Progress>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://src", "replication", "location", "--json"])
            #expect(r.status == 0 && r.stdout.contains(#""oss-cn-beijing""#), "\(r.stdout)")

            r = try await tool.run(["bucket-config", "oss://src", "replication", "delete", "--name", "r1"])
            #expect(r.status == 0, "\(r.stderr)")
            let rules = try await client.getBucketReplication(bucketName: "src").rules
            #expect(rules.allSatisfy { $0.id != "r1" || $0.status == "closing" } && rules.contains { $0.id == assigned }, "\(rules)")
        }
    }

    @Test func badInputIsRefusedBeforeAnythingIsSent() async throws {
        try await withTool(["src", "dst"]) { tool, work, client in
            let truncated = try file(work, "bad.xml", "<ReplicationConfiguration><Rule><ID>r1</ID>")
            var r = try await tool.run(["bucket-config", "oss://src", "replication", "put", truncated])
            #expect(r.status != 0 && r.stderr.contains("not a ReplicationConfiguration document"), "\(r.stderr)")
            let wrongRoot = try file(work, "root.xml", "<CORSConfiguration/>")
            r = try await tool.run(["bucket-config", "oss://src", "replication", "put", wrongRoot])
            #expect(r.status != 0 && r.stderr.contains("not a ReplicationConfiguration document"), "\(r.stderr)")
            let badJSON = try file(work, "bad.json", #"{"Rule": ["#)
            r = try await tool.run(["bucket-config", "oss://src", "meta-query", "query", badJSON])
            #expect(r.status != 0 && r.stderr.contains("not valid JSON"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://src", "replication", "delete"])
            #expect(r.status != 0 && r.stderr.contains("replication delete needs --name (the rule ID)"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://src", "cname", "open"])
            #expect(r.status != 0 && r.stderr.contains("the cname actions are delete, get, put, token, not open"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://src", "policy-status", "get", "--name", "x"])
            #expect(r.status != 0 && r.stderr.contains("policy-status get takes no --name"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://src", "redundancy-transition", "put", truncated])
            #expect(r.status != 0 && r.stderr.contains("redundancy-transition put takes no FILE"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "--help"])
            let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for words in ["progress --name ID", "token --name DOMAIN", "access-point-policy:", "redundancy-transition: put", "query FILE", "policy-status: get"] {
                #expect(help.contains(words), "--help explains \(words): \(help)")
            }
            await #expect(throws: OSSServerError.self, "nothing was added") { _ = try await client.getBucketReplication(bucketName: "src") }
            #expect(try await client.listBucketDataRedundancyTransition(bucketName: "src").transitions.isEmpty)
        }
    }

    @Test func cnameDomainsNeedATokenThenBindAndUnbind() async throws {
        try await withTool(["site"]) { tool, _, client in
            let domain = "static.example.test"
            var r = try await tool.run(["bucket-config", "oss://site", "cname", "put", "--name", domain])
            #expect(r.status != 0 && r.stderr.contains("NeedVerifyDomainOwnership"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://site", "cname", "token", "--name", domain])
            #expect(r.status == 0 && r.stdout.contains("<Cname>\(domain)</Cname>") && r.stdout.contains("<Token>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://site", "cname", "token", "--name", domain, "--json"])
            #expect(r.stdout.contains(#""Token" : ""#) && r.stdout.contains(#""ExpireTime""#), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://site", "cname", "put", "--name", domain])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://site", "cname"])
            #expect(r.stdout.contains("<ListCnameResult><Bucket>site</Bucket>") && r.stdout.contains("<Domain>\(domain)</Domain>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://site", "cname", "get", "--json"])
            #expect(r.stdout.contains(#""Domain" : "\#(domain)""#) && r.stdout.contains(#""Status" : "Enabled""#), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://site", "cname", "delete", "--name", domain])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await client.listCname(bucketName: "site").cnames.isEmpty)
        }
    }

    @Test func accessPointsAndTheirPoliciesArePutReadAndDeleted() async throws {
        try await withTool(["bkt"]) { tool, work, client in
            let vpc = try file(work, "ap.json", #"{"NetworkOrigin": "vpc", "VpcConfiguration": {"VpcId": "vpc-123"}}"#)
            var r = try await tool.run(["bucket-config", "oss://bkt", "access-point", "put", "--name", "ap-01", vpc])
            #expect(r.status == 0 && r.stdout.hasPrefix("ap-01-") && r.stdout.hasSuffix("-ossalias\n"), "\(r.stdout) \(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point", "put", "--name", "ap-02"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point", "get", "--name", "ap-01"])
            #expect(r.stdout.contains("<AccessPointName>ap-01</AccessPointName>") && r.stdout.contains("<VpcId>vpc-123</VpcId>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point", "--json"])
            #expect(r.stdout.contains(#""AccessPointName" : "ap-01""#) && r.stdout.contains(#""AccessPointName" : "ap-02""#), "\(r.stdout) \(r.stderr)")

            let text = #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["27737962156157"],"Resource":["acs:oss:cn-hangzhou:*:accesspoint/ap-01/object/*"]}]}"#
            let policy = try file(work, "policy.json", text)
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point-policy", "put", "--name", "ap-01", policy])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point-policy", "get", "--name", "ap-01"])
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == text)
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point-policy", "delete", "--name", "ap-01"])
            #expect(r.status == 0, "\(r.stderr)")
            await #expect(throws: OSSServerError.self) { _ = try await client.getAccessPointPolicy(accessPointName: "ap-01", bucketName: "bkt") }

            let named = try file(work, "other.xml", "<CreateAccessPointConfiguration><AccessPointName>ap-09</AccessPointName></CreateAccessPointConfiguration>")
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point", "put", "--name", "ap-03", named])
            #expect(r.status != 0 && r.stderr.contains("names the access point ap-09"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "access-point", "delete", "--name", "ap-01"])
            #expect(r.status == 0, "\(r.stderr)")
            await #expect(throws: OSSServerError.self) { _ = try await client.getAccessPoint(name: "ap-01", bucketName: "bkt") }
            #expect(try await client.getAccessPoint(name: "ap-02", bucketName: "bkt").accessPoint.networkOrigin == "internet")
        }
    }

    @Test func redundancyTransitionsStartAreReadAndDeleted() async throws {
        try await withTool(["bkt"], { $0.redundancyTransitionTimes = (3600, 1) }) { tool, _, client in
            var r = try await tool.run(["bucket-config", "oss://bkt", "redundancy-transition", "put"])
            let task = r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(r.status == 0 && !task.isEmpty, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "redundancy-transition", "get", "--name", task])
            #expect(r.stdout.contains("<TaskId>\(task)</TaskId>") && r.stdout.contains("<Status>Queueing</Status>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://bkt", "redundancy-transition", "--json"])
            #expect(r.stdout.contains(#""TaskId" : "\#(task)""#), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://bkt", "redundancy-transition", "delete", "--name", task])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await client.listBucketDataRedundancyTransition(bucketName: "bkt").transitions.isEmpty)
        }
    }

    @Test func metaQueryOpensAnswersQueriesAndCloses() async throws {
        try await withTool(["bkt"]) { tool, work, client in
            var r = try await tool.run(["bucket-config", "oss://bkt", "meta-query", "open"])
            #expect(r.status == 0, "\(r.stderr)")
            for (key, size) in [("docs/a.txt", 10), ("img/c.png", 2000)] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(repeating: 0x61, count: size)))
            }
            r = try await tool.run(["bucket-config", "oss://bkt", "meta-query"])
            #expect(r.stdout.contains("<State>Running</State>"), "\(r.stdout)")
            let condition = OSSMetaQueryCondition.field("Size", "gt", "100").json
            let xml = try file(work, "query.xml", """
                <MetaQuery><MaxResults>10</MaxResults><Query>\(condition)</Query><Aggregations><Aggregation>\
                <Field>Size</Field><Operation>sum</Operation></Aggregation></Aggregations></MetaQuery>
                """)
            r = try await tool.run(["bucket-config", "oss://bkt", "meta-query", "query", xml])
            #expect(r.status == 0 && r.stdout.contains("<Filename>img/c.png</Filename>") && !r.stdout.contains("docs/a.txt"), "\(r.stdout) \(r.stderr)")
            #expect(r.stdout.contains("<Operation>sum</Operation>"), "\(r.stdout)")
            let json = try file(work, "query.json", #"{"Query": "{\"Field\":\"Filename\",\"Value\":\"docs/\",\"Operation\":\"prefix\"}"}"#)
            r = try await tool.run(["bucket-config", "oss://bkt", "meta-query", "query", json, "--json"])
            #expect(r.stdout.contains(#""Filename" : "docs/a.txt""#) && !r.stdout.contains("img/c.png"), "\(r.stdout) \(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "meta-query", "close"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "meta-query"])
            #expect(r.status != 0 && r.stderr.contains("MetaQueryNotExist"), "\(r.stderr)")
        }
    }

    @Test func policyStatusAndStatSayWhetherThePolicyMakesTheBucketPublic() async throws {
        try await withTool(["bkt"]) { tool, work, _ in
            var r = try await tool.run(["bucket-config", "oss://bkt", "policy-status"])
            #expect(r.status == 0 && r.stdout.contains("<PolicyStatus><IsPublic>false</IsPublic></PolicyStatus>"), "\(r.stdout) \(r.stderr)")
            r = try await tool.run(["stat", "oss://bkt"])
            #expect(r.status == 0 && r.stdout.contains("policy:         not public"), "\(r.stdout) \(r.stderr)")
            let policy = try file(work, "public.json", """
                {"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"]}]}
                """)
            r = try await tool.run(["bucket-config", "oss://bkt", "policy", "put", policy])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://bkt", "policy-status", "--json"])
            #expect(r.stdout.contains(#""IsPublic" : true"#), "\(r.stdout)")
            r = try await tool.run(["stat", "oss://bkt"])
            #expect(r.stdout.contains("policy:         public"), "\(r.stdout)")
        }
    }
}
