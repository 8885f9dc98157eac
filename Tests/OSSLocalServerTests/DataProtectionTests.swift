import Foundation
import OSSSigning
import Testing

@testable import OSSLocalServer

/// Data protection on the local server: the bucket retention policy's states and refusals, every write and delete
/// path it must stop (the bypasses), overwrite rules, and the bucket's default encryption applied to new objects.
@Suite struct DataProtectionTests {
    static func days(_ n: Int, _ root: String = "InitiateWormConfiguration") -> [UInt8] {
        Array("<\(root)><RetentionPeriodInDays>\(n)</RetentionPeriodInDays></\(root)>".utf8)
    }

    @Test func wormFollowsOSSStates() async throws {
        try await withLocalOSSServer(.init(buckets: ["worm", "versioned"])) { server in
            let c = TestClient(server)
            var r = try await c.send("GET", bucket: "worm", query: ["worm": ""])
            #expect(r.status == 404 && r.errorCode == "NoSuchWORMConfiguration")
            r = try await c.send("POST", bucket: "worm", query: ["worm": ""], body: Self.days(0))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            r = try await c.send("POST", bucket: "worm", query: ["worm": ""], body: Self.days(25_551))
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")
            r = try await c.send("POST", bucket: "worm", query: ["worm": ""], body: Self.days(1))
            let first = try #require(r.header("x-oss-worm-id"))
            #expect(r.status == 200)
            r = try await c.send("POST", bucket: "worm", query: ["worm": ""], body: Self.days(2))
            #expect(r.status == 409 && r.errorCode == "InvalidWORMConfiguration")
            r = try await c.send("GET", bucket: "worm", query: ["worm": ""])
            #expect(xmlValue("WormId", in: r.text) == first && xmlValue("State", in: r.text) == "InProgress")
            #expect(xmlValue("RetentionPeriodInDays", in: r.text) == "1" && xmlValue("CreationDate", in: r.text) != nil)
            // Extending is for locked policies; an id that names no policy is 404.
            r = try await c.send("POST", bucket: "worm", query: ["wormExtend": "", "wormId": first], body: Self.days(3, "ExtendWormConfiguration"))
            #expect(r.status == 409 && r.errorCode == "InvalidWORMConfiguration")
            r = try await c.send("POST", bucket: "worm", query: ["wormId": "0123456789ABCDEF"])
            #expect(r.status == 404 && r.errorCode == "NoSuchWORMConfiguration")
            // An unlocked policy can be aborted; then it is gone for every call.
            r = try await c.send("DELETE", bucket: "worm", query: ["worm": ""])
            #expect(r.status == 204)
            for request in [("GET", ["worm": ""]), ("POST", ["wormId": first]), ("DELETE", ["worm": ""])] {
                r = try await c.send(request.0, bucket: "worm", query: request.1)
                #expect(r.status == 404 && r.errorCode == "NoSuchWORMConfiguration", "\(request)")
            }
            // Locked: only extended, never shortened or aborted.
            r = try await c.send("POST", bucket: "worm", query: ["worm": ""], body: Self.days(2))
            let id = try #require(r.header("x-oss-worm-id"))
            #expect(id != first)
            r = try await c.send("POST", bucket: "worm", query: ["wormId": id])
            #expect(r.status == 200)
            r = try await c.send("GET", bucket: "worm", query: ["worm": ""])
            #expect(xmlValue("State", in: r.text) == "Locked")
            r = try await c.send("DELETE", bucket: "worm", query: ["worm": ""])
            #expect(r.status == 409 && r.errorCode == "WORMConfigurationLocked")
            for shorter in [1, 2] {
                r = try await c.send(
                    "POST", bucket: "worm", query: ["wormExtend": "", "wormId": id], body: Self.days(shorter, "ExtendWormConfiguration"))
                #expect(r.status == 400 && r.errorCode == "InvalidWORMConfiguration")
            }
            r = try await c.send("POST", bucket: "worm", query: ["wormExtend": "", "wormId": id], body: Self.days(30, "ExtendWormConfiguration"))
            #expect(r.status == 200)
            r = try await c.send("GET", bucket: "worm", query: ["worm": ""])
            #expect(xmlValue("RetentionPeriodInDays", in: r.text) == "30" && xmlValue("State", in: r.text) == "Locked")
            // Versioning and a retention policy exclude each other.
            r = try await c.send(
                "PUT", bucket: "worm", query: ["versioning": ""],
                body: Array("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>".utf8))
            #expect(r.status == 409 && r.errorCode == "InvalidBucketState")
            r = try await c.send(
                "PUT", bucket: "versioned", query: ["versioning": ""],
                body: Array("<VersioningConfiguration><Status>Suspended</Status></VersioningConfiguration>".utf8))
            #expect(r.status == 200)
            r = try await c.send("POST", bucket: "versioned", query: ["worm": ""], body: Self.days(1))
            #expect(r.status == 409 && r.errorCode == "InvalidBucketState")
        }
    }

    /// Every path that deletes or replaces an object meets the retention policy, signed V1 or V4, presigned or
    /// anonymous; new keys and reads stay allowed.
    @Test func retentionStopsEveryDeleteAndOverwritePath() async throws {
        try await withLocalOSSServer(.init(buckets: ["vault"])) { server in
            let c = TestClient(server)
            let v4 = TestClient(server, version: .v4)
            #expect(try await c.send("PUT", bucket: "vault", key: "a", body: [1, 2, 3]).status == 200)
            #expect(try await c.send("PUT", bucket: "vault", key: "b", body: [4]).status == 200)
            #expect(try await c.send("POST", bucket: "vault", key: "log", query: ["append": "", "position": "0"], body: [5]).status == 200)
            let upload = try await c.send("POST", bucket: "vault", key: "a", query: ["uploads": ""])
            let uploadId = try #require(xmlValue("UploadId", in: upload.text))
            let part = try await c.send("PUT", bucket: "vault", key: "a", query: ["uploadId": uploadId, "partNumber": "1"], body: [9])
            let etag = try #require(part.header("ETag"))
            // An unlocked (InProgress) policy protects already.
            #expect(try await c.send("POST", bucket: "vault", query: ["worm": ""], body: Self.days(1)).status == 200)

            var refused: [(String, TestClient.Response)] = []
            refused.append(("DELETE", try await c.send("DELETE", bucket: "vault", key: "a")))
            refused.append(("DELETE V4", try await v4.send("DELETE", bucket: "vault", key: "a")))
            refused.append(("DELETE null version", try await c.send("DELETE", bucket: "vault", key: "a", query: ["versionId": "null"])))
            refused.append(("presigned DELETE", try await c.execute("DELETE", url: try c.presignedURL("DELETE", bucket: "vault", key: "a"))))
            refused.append(("PUT", try await c.send("PUT", bucket: "vault", key: "a", body: [7])))
            refused.append(("PUT V4", try await v4.send("PUT", bucket: "vault", key: "a", body: [7])))
            refused.append(("copy onto", try await c.send("PUT", bucket: "vault", key: "a", headers: ["x-oss-copy-source": "/vault/b"])))
            refused.append(("copy onto itself", try await c.send(
                "PUT", bucket: "vault", key: "a", headers: ["x-oss-copy-source": "/vault/a", "x-oss-metadata-directive": "REPLACE"])))
            let complete = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(etag)</ETag></Part></CompleteMultipartUpload>"
            refused.append(("complete multipart", try await c.send(
                "POST", bucket: "vault", key: "a", query: ["uploadId": uploadId], body: Array(complete.utf8))))
            refused.append(("append", try await c.send("POST", bucket: "vault", key: "log", query: ["append": "", "position": "1"], body: [6])))
            refused.append(("symlink onto", try await c.send("PUT", bucket: "vault", key: "a", query: ["symlink": ""], headers: ["x-oss-symlink-target": "b"])))
            let delete = "<Delete><Quiet>false</Quiet><Object><Key>zzz-new</Key></Object><Object><Key>a</Key></Object></Delete>"
            refused.append(("multi-delete", try await c.send("POST", bucket: "vault", query: ["delete": ""], body: Array(delete.utf8))))
            refused.append(("DeleteBucket", try await c.send("DELETE", bucket: "vault")))
            for (path, response) in refused {
                let expected = path == "DeleteBucket" ? "BucketNotEmpty" : "FileImmutable"
                #expect(response.status == 409 && response.errorCode == expected, "\(path): \(response.status) \(response.text)")
            }
            let a = try await c.send("GET", bucket: "vault", key: "a")
            #expect(a.status == 200 && a.body == [1, 2, 3])
            #expect(try await c.send("GET", bucket: "vault", key: "log").body == [5])
            #expect(try await c.send("GET", bucket: "vault", key: "b").body == [4])
            // New objects may still be written; they are protected in turn.
            #expect(try await c.send("PUT", bucket: "vault", key: "c", body: [8]).status == 200)
            #expect(try await c.send("DELETE", bucket: "vault", key: "c").errorCode == "FileImmutable")
            // Once the unlocked policy is aborted, the same calls go through.
            #expect(try await c.send("DELETE", bucket: "vault", query: ["worm": ""]).status == 204)
            #expect(try await c.send("PUT", bucket: "vault", key: "a", body: [7]).status == 200)
            #expect(try await c.send("DELETE", bucket: "vault", key: "b").status == 204)
        }
    }

    @Test func retentionCountsFromLastModificationAndAnUnlockedPolicyLapses() {
        let created = Date(timeIntervalSince1970: 1_800_000_000)
        var policy = WormDocument(id: "W", retentionDays: 2, created: created)
        let object = ObjectRecord(
            key: "k", size: 0, etag: "", crc64: 0, lastModified: Int64(created.timeIntervalSince1970), contentType: "",
            userMetadata: [:], headers: [:], objectType: "Normal", dataFile: "")
        #expect(policy.protects(object, at: created.addingTimeInterval(3600)))
        #expect(!policy.protects(object, at: created.addingTimeInterval(86_400)), "an unlocked policy lapses after 24 h")
        policy.state = WormDocument.locked
        #expect(policy.protects(object, at: created.addingTimeInterval(2 * 86_400 - 1)))
        #expect(!policy.protects(object, at: created.addingTimeInterval(2 * 86_400)), "retention is over after 2 days")
    }

    static let overwrite = """
        <OverwriteConfiguration>
          <Rule><ID>conf</ID><Action>forbid</Action><Prefix>conf/</Prefix><Suffix>.json</Suffix></Rule>
          <Rule><Action>forbid</Action><Prefix>other/</Prefix><Principals><Principal>27737962156157</Principal></Principals></Rule>
        </OverwriteConfiguration>
        """

    @Test func overwriteRulesRefuseForbiddenOverwrites() async throws {
        try await withLocalOSSServer(.init(buckets: ["ow-a", "ow-v"])) { server in
            let c = TestClient(server)
            var r = try await c.send("GET", bucket: "ow-a", query: ["overwriteConfig": ""])
            #expect(r.status == 404 && r.errorCode == "NoSuchOverwriteConfiguration")
            for bad in [
                "<OverwriteConfiguration><Rule><Action>allow</Action></Rule></OverwriteConfiguration>",
                "<OverwriteConfiguration><Rule><ID>x</ID><Action>forbid</Action></Rule><Rule><ID>x</ID><Action>forbid</Action></Rule></OverwriteConfiguration>",
                "<OverwriteConfiguration>" + String(repeating: "<Rule><Action>forbid</Action></Rule>", count: 101) + "</OverwriteConfiguration>",
            ] {
                r = try await c.send("PUT", bucket: "ow-a", query: ["overwriteConfig": ""], body: Array(bad.utf8))
                #expect(r.status == 400 && r.errorCode == "InvalidArgument", "\(r.text)")
            }
            #expect(try await c.send("GET", bucket: "ow-a", query: ["overwriteConfig": ""]).status == 404)
            r = try await c.send("PUT", bucket: "ow-a", query: ["overwriteConfig": ""], body: Array(Self.overwrite.utf8))
            #expect(r.status == 200)
            r = try await c.send("GET", bucket: "ow-a", query: ["overwriteConfig": ""])
            let ids = xmlValues("ID", in: r.text)
            #expect(ids.count == 2 && ids[0] == "conf" && !ids[1].isEmpty, "a rule without ID gets one: \(r.text)")

            #expect(try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", body: [1]).status == 200)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "conf/app.txt", body: [1]).status == 200)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "other/x.json", body: [1]).status == 200)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "src", body: [2]).status == 200)
            let upload = try await c.send("POST", bucket: "ow-a", key: "conf/app.json", query: ["uploads": ""])
            let uploadId = try #require(xmlValue("UploadId", in: upload.text))
            let part = try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", query: ["uploadId": uploadId, "partNumber": "1"], body: [9])
            let complete = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(part.header("ETag") ?? "")</ETag></Part></CompleteMultipartUpload>"
            let refused = [
                try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", body: [3]),
                try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", headers: ["x-oss-copy-source": "/ow-a/src"]),
                try await c.send("POST", bucket: "ow-a", key: "conf/app.json", query: ["uploadId": uploadId], body: Array(complete.utf8)),
                try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", query: ["symlink": ""], headers: ["x-oss-symlink-target": "src"]),
            ]
            for response in refused {
                #expect(response.status == 409 && response.errorCode == "FileAlreadyExists", "\(response.text)")
            }
            #expect(try await c.send("GET", bucket: "ow-a", key: "conf/app.json").body == [1])
            // Outside the prefix and suffix, and for a principal the rule does not name, overwrites go through.
            #expect(try await c.send("PUT", bucket: "ow-a", key: "conf/app.txt", body: [4]).status == 200)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "other/x.json", body: [4]).status == 200)
            // Deleting is not overwriting; a new object may be written once.
            #expect(try await c.send("DELETE", bucket: "ow-a", key: "conf/app.json").status == 204)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", body: [5]).status == 200)
            // As OSS: the rules do not apply in a bucket that has versioning.
            #expect(try await c.send("PUT", bucket: "ow-v", query: ["overwriteConfig": ""], body: Array(Self.overwrite.utf8)).status == 200)
            _ = try await c.send(
                "PUT", bucket: "ow-v", query: ["versioning": ""],
                body: Array("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>".utf8))
            #expect(try await c.send("PUT", bucket: "ow-v", key: "conf/a.json", body: [1]).status == 200)
            #expect(try await c.send("PUT", bucket: "ow-v", key: "conf/a.json", body: [2]).status == 200)
            #expect(try await c.send("DELETE", bucket: "ow-a", query: ["overwriteConfig": ""]).status == 204)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "conf/app.json", body: [6]).status == 200)
        }
    }

    @Test func overwriteRulesNamingTheRequesterApplyToIt() async throws {
        try await withLocalOSSServer(.init(buckets: ["ow-a"])) { server in
            let c = TestClient(server)
            let mine = """
                <OverwriteConfiguration><Rule><Action>forbid</Action><Principals><Principal>\(server.credentials.accessKeyId)</Principal>
                </Principals></Rule></OverwriteConfiguration>
                """
            #expect(try await c.send("PUT", bucket: "ow-a", query: ["overwriteConfig": ""], body: Array(mine.utf8)).status == 200)
            #expect(try await c.send("PUT", bucket: "ow-a", key: "k", body: [1]).status == 200)
            let again = try await c.send("PUT", bucket: "ow-a", key: "k", body: [2])
            #expect(again.errorCode == "FileAlreadyExists")
        }
    }

    @Test func defaultEncryptionAppliesToNewObjects() async throws {
        var configuration = LocalOSSServerConfiguration(buckets: ["enc"])
        configuration.kmsKeyId = "cmk-default"
        try await withLocalOSSServer(configuration) { server in
            let c = TestClient(server)
            let sse = "x-oss-server-side-encryption"
            let key = "x-oss-server-side-encryption-key-id"
            #expect(try await c.send("PUT", bucket: "enc", key: "before", body: [1]).header(sse) == nil)
            let rule = """
                <ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>KMS</SSEAlgorithm>
                <KMSMasterKeyID>cmk-bucket</KMSMasterKeyID></ApplyServerSideEncryptionByDefault></ServerSideEncryptionRule>
                """
            #expect(try await c.send("PUT", bucket: "enc", query: ["encryption": ""], body: Array(rule.utf8)).status == 200)
            var r = try await c.send("PUT", bucket: "enc", key: "after", body: [1])
            #expect(r.header(sse) == "KMS" && r.header(key) == "cmk-bucket")
            for method in ["HEAD", "GET"] {
                r = try await c.send(method, bucket: "enc", key: "after")
                #expect(r.header(sse) == "KMS" && r.header(key) == "cmk-bucket", "\(method)")
            }
            #expect(try await c.send("HEAD", bucket: "enc", key: "before").header(sse) == nil, "existing objects stay as they were")
            // A request that names its encryption keeps it.
            r = try await c.send("PUT", bucket: "enc", key: "aes", headers: [sse: "AES256"], body: [1])
            #expect(r.header(sse) == "AES256" && r.header(key) == nil)
            // Multipart, copy and append take the default too.
            r = try await c.send("POST", bucket: "enc", key: "mp", query: ["uploads": ""])
            #expect(r.header(sse) == "KMS" && r.header(key) == "cmk-bucket")
            let uploadId = try #require(xmlValue("UploadId", in: r.text))
            let part = try await c.send("PUT", bucket: "enc", key: "mp", query: ["uploadId": uploadId, "partNumber": "1"], body: [9])
            let complete = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\(part.header("ETag") ?? "")</ETag></Part></CompleteMultipartUpload>"
            r = try await c.send("POST", bucket: "enc", key: "mp", query: ["uploadId": uploadId], body: Array(complete.utf8))
            #expect(r.header(sse) == "KMS" && r.header(key) == "cmk-bucket")
            r = try await c.send("PUT", bucket: "enc", key: "copy", headers: ["x-oss-copy-source": "/enc/before"])
            #expect(r.header(sse) == "KMS" && r.header(key) == "cmk-bucket")
            r = try await c.send("POST", bucket: "enc", key: "app", query: ["append": "", "position": "0"], body: [1])
            #expect(r.header(sse) == "KMS")
            // AES256 by default: no key id.
            let aes = "<ServerSideEncryptionRule><ApplyServerSideEncryptionByDefault><SSEAlgorithm>AES256</SSEAlgorithm></ApplyServerSideEncryptionByDefault></ServerSideEncryptionRule>"
            #expect(try await c.send("PUT", bucket: "enc", query: ["encryption": ""], body: Array(aes.utf8)).status == 200)
            r = try await c.send("PUT", bucket: "enc", key: "aes-default", body: [1])
            #expect(r.header(sse) == "AES256" && r.header(key) == nil)
        }
    }
}
