import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// Symlinks keep their own metadata, tags and ACL: a GET or HEAD of a symlink answers with the target's bytes and the
/// headers describing them, and with the symlink's own metadata (as OSS documents for HeadObject and oss2's
/// test_put_symlink expects).
@Suite struct SymlinkTests {
    @Test func aSymlinkKeepsItsOwnMetadataTagsAndACL() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lnk"])) { server in
            let client = TestClient(server)
            let target = try await client.send(
                "PUT", bucket: "lnk", key: "target.csv",
                headers: ["Content-Type": "text/csv", "x-oss-meta-owner": "target", "x-oss-tagging": "t=1"],
                body: Array("hello".utf8))
            #expect(target.status == 200)
            let put = try await client.send(
                "PUT", bucket: "lnk", key: "link", query: ["symlink": ""],
                headers: [
                    "x-oss-symlink-target": "target.csv", "x-oss-meta-key1": "value1", "X-Oss-Meta-Key2": "value2",
                    "x-oss-tagging": "a=1&b=two%20words", "x-oss-object-acl": "public-read",
                ])
            #expect(put.status == 200)

            for method in ["HEAD", "GET"] {
                let r = try await client.send(method, bucket: "lnk", key: "link")
                #expect(r.status == 200)
                #expect(r.header("Content-Length") == "5", "\(method): the target's length")
                #expect(r.header("ETag") == target.header("ETag"), "\(method): the target's ETag")
                #expect(r.header("Content-Type") == "text/csv", "\(method): no Content-Type of its own")
                #expect(r.header("x-oss-meta-key1") == "value1" && r.header("x-oss-meta-key2") == "value2", "\(method)")
                #expect(r.header("x-oss-meta-owner") == nil, "\(method): not the target's metadata")
                #expect(r.header("x-oss-tagging-count") == "2", "\(method): the symlink's tags")
                #expect(r.header("x-oss-object-type") == "Symlink", "\(method)")
                if method == "GET" { #expect(r.text == "hello") }
            }
            let tagging = try await client.send("GET", bucket: "lnk", key: "link", query: ["tagging": ""])
            #expect(xmlValues("Key", in: tagging.text) == ["a", "b"])
            #expect(xmlValues("Value", in: tagging.text) == ["1", "two words"])
            let acl = try await client.send("GET", bucket: "lnk", key: "link", query: ["acl": ""])
            #expect(xmlValue("Grant", in: acl.text) == "public-read")
            let link = try await client.send("GET", bucket: "lnk", key: "link", query: ["symlink": ""])
            #expect(link.header("x-oss-symlink-target") == "target.csv")
            #expect(link.header("x-oss-meta-key1") == "value1")
        }
    }

    @Test func aSymlinkAnswersWithItsTargetsContentType() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lnk"])) { server in
            let client = TestClient(server)
            let target = try await client.send(
                "PUT", bucket: "lnk", key: "t", headers: ["Content-Type": "text/csv"], body: [1])
            #expect(target.status == 200)
            // SDKs send a Content-Type with every PutSymlink (application/octet-stream by default).
            let link = try await client.send(
                "PUT", bucket: "lnk", key: "l", query: ["symlink": ""],
                headers: ["x-oss-symlink-target": "t", "Content-Type": "application/octet-stream"])
            #expect(link.status == 200)
            let head = try await client.send("HEAD", bucket: "lnk", key: "l")
            #expect(head.header("Content-Type") == "text/csv")
        }
    }

    /// Reading through a symlink checks the symlink's ACL and its target's (OSS's PutSymlink reference): a
    /// public-read symlink does not publish a private target to anonymous callers, while signed and presigned reads
    /// still follow it.
    @Test func aPublicReadSymlinkDoesNotPublishAPrivateTarget() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lnk"])) { server in
            let client = TestClient(server)
            let targetKey = "sym/target é.txt"
            let linkKey = "sym/link é"
            let bytes = Array("private bytes".utf8)
            #expect(try await client.send("PUT", bucket: "lnk", key: targetKey, body: bytes).status == 200)
            let put = try await client.send(
                "PUT", bucket: "lnk", key: linkKey, query: ["symlink": ""],
                headers: [
                    "x-oss-symlink-target": OSSPercentEncoding.encode(targetKey, keepSlash: true),
                    "x-oss-object-acl": "public-read",
                ])
            #expect(put.status == 200)
            func anonymous(_ method: String) async throws -> TestClient.Response {
                try await client.send(method, bucket: "lnk", key: linkKey, sign: false)
            }

            var r = try await anonymous("GET")
            #expect(r.status == 403 && r.errorCode == "AccessDenied", "the target is private")
            #expect(!r.text.contains("private bytes"))
            #expect(try await anonymous("HEAD").status == 403)

            for method in ["GET", "HEAD"] {
                r = try await client.send(method, bucket: "lnk", key: linkKey)
                #expect(r.status == 200, "\(method) signed")
                #expect(r.header("Content-Length") == String(bytes.count), "\(method) signed")
            }
            #expect(try await client.send("GET", bucket: "lnk", key: linkKey).body == bytes)
            let presigned = try client.presignedURL("GET", bucket: "lnk", key: linkKey)
            r = try await client.execute("GET", url: presigned)
            #expect(r.status == 200 && r.body == bytes, "presigned")

            // A public-read target: both allow reading.
            #expect(try await client.send(
                "PUT", bucket: "lnk", key: targetKey, query: ["acl": ""],
                headers: ["x-oss-object-acl": "public-read"]).status == 200)
            r = try await anonymous("GET")
            #expect(r.status == 200 && r.body == bytes)
            #expect(try await anonymous("HEAD").status == 200)

            // A private symlink to a public-read target: the symlink's own ACL refuses.
            #expect(try await client.send(
                "PUT", bucket: "lnk", key: linkKey, query: ["acl": ""],
                headers: ["x-oss-object-acl": "private"]).status == 200)
            r = try await anonymous("GET")
            #expect(r.status == 403 && r.errorCode == "AccessDenied")

            // Both default in a public-read bucket: the bucket's ACL allows reading.
            for key in [targetKey, linkKey] {
                #expect(try await client.send(
                    "PUT", bucket: "lnk", key: key, query: ["acl": ""],
                    headers: ["x-oss-object-acl": "default"]).status == 200)
            }
            #expect(try await client.send(
                "PUT", bucket: "lnk", query: ["acl": ""], headers: ["x-oss-acl": "public-read"]).status == 200)
            r = try await anonymous("GET")
            #expect(r.status == 200 && r.body == bytes)
            #expect(try await anonymous("HEAD").status == 200)
        }
    }

    @Test func symlinkErrors() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lnk"])) { server in
            let client = TestClient(server)
            #expect(try await client.send("PUT", bucket: "lnk", key: "t", body: [1]).status == 200)
            let tooManyTags = (0..<15).map { "k\($0)=v\($0)" }.joined(separator: "&")
            var r = try await client.send(
                "PUT", bucket: "lnk", key: "l", query: ["symlink": ""],
                headers: ["x-oss-symlink-target": "t", "x-oss-tagging": tooManyTags])
            #expect(r.status == 400)
            #expect(try await client.send("HEAD", bucket: "lnk", key: "l").status == 404, "a refused symlink is not stored")
            #expect(try await client.send(
                "PUT", bucket: "lnk", key: "l", query: ["symlink": ""], headers: ["x-oss-symlink-target": "t"]).status == 200)
            #expect(try await client.send(
                "PUT", bucket: "lnk", key: "l2", query: ["symlink": ""], headers: ["x-oss-symlink-target": "l"]).status == 200)
            r = try await client.send("GET", bucket: "lnk", key: "l2")
            #expect(r.status == 400 && r.errorCode == "InvalidTargetType", "a symlink to a symlink is not followed")
        }
    }
}
