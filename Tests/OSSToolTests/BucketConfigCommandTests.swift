import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss bucket-config oss://b FAMILY [get|put FILE|delete]` against the local server.
@Suite("oss bucket-config")
struct BucketConfigCommandTests {
    @Test func putGetAndDeleteInXMLAndJSON() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["cfgb"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let xml = work.appendingPathComponent("cors.xml")
            try Data("""
                <CORSConfiguration><CORSRule><AllowedOrigin>https://*.example.com</AllowedOrigin>
                <AllowedMethod>PUT</AllowedMethod><MaxAgeSeconds>60</MaxAgeSeconds></CORSRule></CORSConfiguration>
                """.utf8).write(to: xml)
            var r = try await tool.run(["bucket-config", "oss://cfgb", "cors", "get"])
            #expect(r.status != 0 && r.stderr.contains("NoSuchCORSConfiguration"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "cors", "put", xml.path])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "cors"])
            #expect(r.status == 0 && r.stdout.contains("<AllowedOrigin>https://*.example.com</AllowedOrigin>"), "\(r.stdout)")
            #expect(r.stdout.contains("<MaxAgeSeconds>60</MaxAgeSeconds>"), "\(r.stdout)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "cors", "get", "--json"])
            #expect(r.stdout.contains(#""AllowedOrigin" : ["#) && r.stdout.contains(#""MaxAgeSeconds" : 60"#), "\(r.stdout)")

            // The JSON get prints is what put takes.
            let json = work.appendingPathComponent("cors.json")
            try Data(r.stdout.replacingOccurrences(of: "PUT", with: "POST").utf8).write(to: json)
            r = try await tool.run(["bucket-config", "oss://cfgb", "cors", "put", json.path])
            #expect(r.status == 0, "\(r.stderr)")
            try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
                let cors = try await client.getBucketConfiguration(OSSCORSConfiguration.self, bucketName: "cfgb").configuration
                #expect(cors.rules.first?.allowedMethods == ["POST"] && cors.rules.first?.maxAgeSeconds == 60)
            }

            let lifecycle = work.appendingPathComponent("lifecycle.json")
            try Data(#"{"Rule": [{"ID": "tmp", "Prefix": "tmp/", "Status": "Enabled", "Expiration": {"Days": 0}}]}"#.utf8)
                .write(to: lifecycle)
            r = try await tool.run(["bucket-config", "oss://cfgb", "lifecycle", "put", lifecycle.path])
            #expect(r.status != 0 && r.stderr.contains("InvalidArgument"), "the server's refusal is reported: \(r.stderr)")

            r = try await tool.run(["bucket-config", "oss://cfgb", "cors", "delete"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "referer", "delete"])
            #expect(r.status != 0 && r.stderr.contains("no delete"), "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "colour", "get"])
            #expect(r.status != 0 && r.stderr.contains("unknown family"), "\(r.stderr)")

            let policy = work.appendingPathComponent("policy.json")
            let text = #"{"Version":"1","Statement":[{"Effect":"Deny","Action":["oss:PutObject"],"Principal":["*"],"Resource":["acs:oss:*:*:cfgb/*"]}]}"#
            try Data(text.utf8).write(to: policy)
            r = try await tool.run(["bucket-config", "oss://cfgb", "policy", "put", policy.path])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "policy"])
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == text)
        }
    }

    @Test func overwriteRulesAreAFamilyLikeTheOthers() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["cfgb"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let rules = work.appendingPathComponent("overwrite.json")
            try Data(#"{"Rule": [{"ID": "conf", "Action": "forbid", "Prefix": "conf/", "Principals": {"Principal": ["*"]}}]}"#.utf8)
                .write(to: rules)
            var r = try await tool.run(["bucket-config", "oss://cfgb", "overwrite", "put", rules.path])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "overwrite"])
            #expect(r.stdout.contains("<ID>conf</ID>") && r.stdout.contains("<Principal>*</Principal>"), "\(r.stdout)")
            try await withOSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider) { client in
                let put = OSSPutObjectRequest(bucketName: "cfgb", objectKey: "conf/a", data: Data("1".utf8))
                _ = try await client.putObject(put)
                await #expect(throws: OSSServerError.self) { _ = try await client.putObject(put) }
            }
            r = try await tool.run(["bucket-config", "oss://cfgb", "overwrite", "delete"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["bucket-config", "oss://cfgb", "overwrite"])
            #expect(r.status != 0 && r.stderr.contains("NoSuchOverwriteConfiguration"), "\(r.stderr)")
        }
    }
}
