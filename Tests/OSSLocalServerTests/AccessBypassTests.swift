import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// A policy, referer rule or public access block that says no is not got round: not anonymously, not with a
/// presigned URL or a signed header (V1 or V4), not by copying the object elsewhere (CopyObject, UploadPartCopy),
/// not by appending, by the steps of a multipart upload, through a symlink, or by a DeleteMultipleObjects.
@Suite struct AccessBypassTests {
    enum Way: String, CaseIterable, Sendable {
        case anonymous, presignedV1, presignedV4, headerV1, headerV4
    }

    /// Sends the request the way `way` signs it (or does not).
    static func attempt(
        _ way: Way, _ server: LocalOSSServer, _ method: String, bucket: String, key: String?, query: [String: String] = [:],
        headers: [String: String] = [:], body: [UInt8] = []
    ) async throws -> TestClient.Response {
        switch way {
        case .anonymous:
            return try await TestClient(server).send(method, bucket: bucket, key: key, query: query, headers: headers, body: body, sign: false)
        case .headerV1, .headerV4:
            return try await TestClient(server, version: way == .headerV1 ? .v1 : .v4)
                .send(method, bucket: bucket, key: key, query: query, headers: headers, body: body)
        case .presignedV1, .presignedV4:
            let client = TestClient(server, version: way == .presignedV1 ? .v1 : .v4)
            var request = OSSSignableRequest(method: method, bucket: bucket, key: key, query: query, headers: headers)
            try client.signer.presign(&request, credentials: client.credentials, date: Date(), expiresIn: 300)
            return try await client.execute(
                method, url: client.url(bucket: bucket, key: key, query: request.query), headers: headers, body: body)
        }
    }

    static func initiate(_ client: TestClient, _ bucket: String, _ key: String) async throws -> String {
        let r = try await client.send("POST", bucket: bucket, key: key, query: ["uploads": ""])
        return try #require(xmlValue("UploadId", in: r.text))
    }

    /// Every path to a denied object's bytes, and to writing under a denied prefix, tried every way.
    @Test(arguments: Way.allCases)
    func policyDenialHasNoWayRound(way: Way) async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["byp"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            #expect(try await owner.send("PUT", bucket: "byp", query: ["acl": ""], headers: ["x-oss-acl": "public-read-write"]).status == 200)
            #expect(try await owner.send("PUT", bucket: "byp", key: "secret/a", body: [1, 2, 3]).status == 200)
            #expect(try await owner.send("PUT", bucket: "byp", key: "open/a", body: [4]).status == 200)
            #expect(try await owner.send("PUT", bucket: "byp", key: "open/link", query: ["symlink": ""], headers: ["x-oss-symlink-target": "secret/a"]).status == 200)
            let lockedUpload = try await Self.initiate(owner, "byp", "locked/mpu")
            let openUpload = try await Self.initiate(owner, "byp", "open/mpu")
            // With a condition, "*" binds everyone, the bucket owner included.
            let policy = #"""
                {"Version":"1","Statement":[
                {"Effect":"Deny","Action":["oss:GetObject","oss:DeleteObject"],"Principal":["*"],"Resource":["acs:oss:*:*:byp/secret/*"],"Condition":{"IpAddress":{"acs:SourceIp":["0.0.0.0/0"]}}},
                {"Effect":"Deny","Action":["oss:PutObject"],"Principal":["*"],"Resource":["acs:oss:*:*:byp/locked/*"],"Condition":{"IpAddress":{"acs:SourceIp":["0.0.0.0/0"]}}}]}
                """#
            #expect(try await owner.send("PUT", bucket: "byp", query: ["policy": ""], body: Array(policy.utf8)).status == 200)

            func denied(_ method: String, _ key: String?, query: [String: String] = [:], headers: [String: String] = [:], body: [UInt8] = [], _ what: String) async throws {
                let r = try await Self.attempt(way, server, method, bucket: "byp", key: key, query: query, headers: headers, body: body)
                #expect(r.status == 403 && r.errorCode == "AccessDenied", "\(way) \(what): \(r.status) \(r.errorCode ?? "")")
            }
            try await denied("GET", "secret/a", "GetObject")
            try await denied("HEAD", "secret/a", "HeadObject")
            try await denied("GET", "secret/a", query: ["objectMeta": ""], "GetObjectMeta")
            try await denied("GET", "open/link", "GetObject through a symlink")
            try await denied("PUT", "open/copy", headers: ["x-oss-copy-source": "/byp/secret/a"], "CopyObject from a denied source")
            try await denied("PUT", "open/mpu", query: ["partNumber": "1", "uploadId": openUpload],
                             headers: ["x-oss-copy-source": "/byp/secret/a"], "UploadPartCopy from a denied source")
            try await denied("PUT", "locked/x", body: [9], "PutObject")
            try await denied("POST", "locked/x", query: ["append": "", "position": "0"], body: [9], "AppendObject")
            try await denied("POST", "locked/y", query: ["uploads": ""], "InitiateMultipartUpload")
            try await denied("PUT", "locked/mpu", query: ["partNumber": "1", "uploadId": lockedUpload], body: [9], "UploadPart")
            let complete = Array("<CompleteMultipartUpload></CompleteMultipartUpload>".utf8)
            try await denied("POST", "locked/mpu", query: ["uploadId": lockedUpload], body: complete, "CompleteMultipartUpload")
            try await denied("PUT", "locked/copy", headers: ["x-oss-copy-source": "/byp/open/a"], "CopyObject into a denied prefix")
            try await denied("PUT", "locked/link", query: ["symlink": ""], headers: ["x-oss-symlink-target": "open/a"], "PutSymlink")
            try await denied("DELETE", "secret/a", "DeleteObject")
            let batch = Array("<Delete><Quiet>true</Quiet><Object><Key>open/a</Key></Object><Object><Key>secret/a</Key></Object></Delete>".utf8)
            try await denied("POST", nil, query: ["delete": ""], body: batch, "DeleteMultipleObjects naming a denied key")
            #expect(try await owner.send("HEAD", bucket: "byp", key: "open/a").status == 200, "nothing of the batch was deleted")

            // What the policy does not cover still works the same way.
            let allowed = try await Self.attempt(way, server, "GET", bucket: "byp", key: "open/a")
            #expect(allowed.status == 200 && allowed.body == [4], "\(way)")
            let copied = try await Self.attempt(way, server, "PUT", bucket: "byp", key: "open/b", headers: ["x-oss-copy-source": "/byp/open/a"])
            #expect(copied.status == 200, "\(way) \(copied.text)")
            #expect(try await owner.send("GET", bucket: "byp", key: "locked/x").errorCode == "NoSuchKey")
        }
    }

    /// Referer rules and a public access block stop every anonymous or presigned path to a public bucket's objects.
    @Test(arguments: [Way.anonymous, .presignedV1, .presignedV4])
    func refererDenialHasNoWayRound(way: Way) async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["rfb"])) { (server: LocalOSSServer) async throws -> Void in
            let owner = TestClient(server)
            #expect(try await owner.send("PUT", bucket: "rfb", query: ["acl": ""], headers: ["x-oss-acl": "public-read-write"]).status == 200)
            #expect(try await owner.send("PUT", bucket: "rfb", key: "a", body: [1]).status == 200)
            #expect(try await owner.send("PUT", bucket: "rfb", key: "link", query: ["symlink": ""], headers: ["x-oss-symlink-target": "a"]).status == 200)
            let rules = """
                <RefererConfiguration><AllowEmptyReferer>false</AllowEmptyReferer>
                <RefererList><Referer>https://ok.example.com</Referer></RefererList></RefererConfiguration>
                """
            #expect(try await owner.send("PUT", bucket: "rfb", query: ["referer": ""], body: Array(rules.utf8)).status == 200)
            let bad = ["Referer": "https://evil.example.org/"]
            for (method, key, query, headers, what) in [
                ("GET", "a", [:], bad, "GetObject"), ("HEAD", "a", [:], [:], "HeadObject"), ("GET", "link", [:], bad, "symlink"),
                ("PUT", "b", [:], bad.merging(["x-oss-copy-source": "/rfb/a"]) { $1 }, "CopyObject"),
                ("PUT", "c", [:], bad, "PutObject"), ("POST", "d", ["append": "", "position": "0"], bad, "AppendObject"),
                ("POST", "e", ["uploads": ""], bad, "InitiateMultipartUpload"),
            ] as [(String, String, [String: String], [String: String], String)] {
                let r = try await Self.attempt(way, server, method, bucket: "rfb", key: key, query: query, headers: headers, body: method == "GET" || method == "HEAD" ? [] : [1])
                #expect(r.status == 403 && r.errorCode == "AccessDenied", "\(way) \(what): \(r.status)")
            }
            let good = try await Self.attempt(way, server, "GET", bucket: "rfb", key: "a", headers: ["Referer": "https://ok.example.com/page"])
            #expect(good.status == 200, "\(way)")

            // A public access block: the bucket ACL says public-read-write, and counts for nothing.
            let on = "<PublicAccessBlockConfiguration><BlockPublicAccess>true</BlockPublicAccess></PublicAccessBlockConfiguration>"
            #expect(try await owner.send("PUT", bucket: "rfb", query: ["publicAccessBlock": ""], body: Array(on.utf8)).status == 200)
            let ok = ["Referer": "https://ok.example.com/"]
            for (method, key, query, headers) in [
                ("GET", "a", [:], ok), ("PUT", "f", [:], ok), ("POST", "g", ["append": "", "position": "0"], ok),
                ("POST", "h", ["uploads": ""], ok), ("PUT", "i", [:], ok.merging(["x-oss-copy-source": "/rfb/a"]) { $1 }),
                ("PUT", "j", ["symlink": ""], ok.merging(["x-oss-symlink-target": "a"]) { $1 }),
            ] as [(String, String, [String: String], [String: String])] {
                let r = try await Self.attempt(way, server, method, bucket: "rfb", key: key, query: query, headers: headers, body: method == "GET" ? [] : [1])
                if way == .anonymous {
                    #expect(r.status == 403 && r.errorCode == "AccessDenied", "\(way) \(method) \(key): \(r.status)")
                } else {
                    #expect(r.status == 200, "\(way) \(method) \(key): the owner's URL is not public access")
                }
            }
        }
    }
}
