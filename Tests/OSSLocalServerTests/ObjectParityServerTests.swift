import Foundation
import OSSLocalServer
import OSSSigning
import Testing

/// The local server's object operations seen on the wire: ACLs for anonymous requests, hostile copy sources and
/// tags, DeleteMultipleObjects limits, append positions, restore state.
@Suite struct ObjectParityServerTests {
    @Test func anonymousRequestsFollowTheACLs() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["acl"])) { server in
            let client = TestClient(server)
            #expect(try await client.send("PUT", bucket: "acl", key: "o", body: [1, 2]).status == 200)
            func anonymous(_ method: String, _ key: String? = "o", body: [UInt8] = []) async throws -> TestClient.Response {
                try await client.send(method, bucket: "acl", key: key, body: body, sign: false)
            }
            var r = try await anonymous("GET")
            #expect(r.status == 403 && r.errorCode == "AccessDenied")
            #expect(try await client.send("PUT", bucket: "acl", key: "o", query: ["acl": ""],
                                          headers: ["x-oss-object-acl": "public-read"]).status == 200)
            r = try await anonymous("GET")
            #expect(r.status == 200 && r.body == [1, 2])
            #expect(try await anonymous("HEAD").status == 200)
            r = try await anonymous("PUT", body: [9])
            #expect(r.status == 403 && r.errorCode == "AccessDenied", "public-read does not allow writes")
            r = try await anonymous("GET", "missing")
            #expect(r.status == 403, "a private bucket hides even missing keys")

            #expect(try await client.send("PUT", bucket: "acl", query: ["acl": ""],
                                          headers: ["x-oss-acl": "public-read-write"]).status == 200)
            #expect(xmlValue("Grant", in: try await client.send("GET", bucket: "acl", query: ["acl": ""]).text)
                == "public-read-write")
            r = try await anonymous("PUT", "anon-write", body: [7])
            #expect(r.status == 200)
            r = try await anonymous("GET", "missing")
            #expect(r.status == 404 && r.errorCode == "NoSuchKey")
            // an anonymous copy may not read a private source
            #expect(try await client.send("PUT", bucket: "acl", key: "secret", headers: ["x-oss-object-acl": "private"],
                                          body: [5]).status == 200)
            r = try await client.send(
                "PUT", bucket: "acl", key: "stolen", headers: ["x-oss-copy-source": "/acl/secret"], sign: false)
            #expect(r.status == 403 && r.errorCode == "AccessDenied")
            r = try await client.send(
                "PUT", bucket: "acl", key: "o", query: ["acl": ""], headers: ["x-oss-object-acl": "private"], sign: false)
            #expect(r.status == 403, "only the owner changes ACLs")
            r = try await client.send("PUT", bucket: "acl", query: ["acl": ""], headers: ["x-oss-acl": "default"])
            #expect(r.status == 400 && r.errorCode == "InvalidArgument", "default is not a bucket ACL")
        }
    }

    @Test func hostileCopySourcesGetPreciseErrors() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["cpy"])) { server in
            let client = TestClient(server)
            #expect(try await client.send("PUT", bucket: "cpy", key: "a b/ü", body: Array(repeating: 7, count: 100)).status == 200)
            let cases: [(String, Int, String)] = [
                ("", 400, "InvalidArgument"), ("/", 400, "InvalidArgument"), ("/cpy", 400, "InvalidArgument"),
                ("/cpy/", 400, "InvalidArgument"), ("/Bad_Bucket/k", 400, "InvalidArgument"),
                ("/cpy/%ZZ", 400, "InvalidArgument"), ("/cpy/%2Fabs", 400, "InvalidObjectName"),
                ("/cpy/" + String(repeating: "k", count: 1024), 400, "InvalidObjectName"),
                ("/cpy/../../etc/passwd", 404, "NoSuchKey"), ("/nobucket/k", 404, "NoSuchBucket"),
            ]
            for (source, status, code) in cases {
                let r = try await client.send("PUT", bucket: "cpy", key: "dst", headers: ["x-oss-copy-source": source])
                #expect(r.status == status && r.errorCode == code, "\(source.prefix(40)): \(r.status) \(r.text.prefix(200))")
            }
            let ok = try await client.send(
                "PUT", bucket: "cpy", key: "dst", headers: ["x-oss-copy-source": "/cpy/a%20b/%C3%BC"])
            #expect(ok.status == 200 && xmlValue("ETag", in: ok.text) != nil, "\(ok.text)")
            let id = try #require(
                xmlValue("UploadId", in: try await client.send("POST", bucket: "cpy", key: "mp", query: ["uploads": ""]).text))
            for range in ["bytes=5-2", "bytes=0-100", "bytes=-5", "bytes=a-b", "0-5"] {
                let r = try await client.send(
                    "PUT", bucket: "cpy", key: "mp", query: ["partNumber": "1", "uploadId": id],
                    headers: ["x-oss-copy-source": "/cpy/a%20b/%C3%BC", "x-oss-copy-source-range": range])
                #expect(r.status == 400 && r.errorCode == "InvalidArgument", "\(range): \(r.text.prefix(200))")
            }
            let part = try await client.send(
                "PUT", bucket: "cpy", key: "mp", query: ["partNumber": "1", "uploadId": id],
                headers: ["x-oss-copy-source": "/cpy/a%20b/%C3%BC", "x-oss-copy-source-range": "bytes=10-19"])
            #expect(part.status == 200 && xmlValue("ETag", in: part.text) != nil)
            let directive = try await client.send(
                "PUT", bucket: "cpy", key: "dst", headers: ["x-oss-copy-source": "/cpy/dst", "x-oss-metadata-directive": "MOVE"])
            #expect(directive.status == 400 && directive.errorCode == "InvalidArgument")
        }
    }

    @Test func tagsAndNamesAreChecked() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["tag"])) { server in
            let client = TestClient(server)
            let tooLongKey = String(repeating: "k", count: 129)
            let tooLongValue = String(repeating: "v", count: 257)
            let eleven = (0..<11).map { "k\($0)=v" }.joined(separator: "&")
            for (header, code) in [
                ("a%3Cb=1", "InvalidTag"), ("\(tooLongKey)=1", "InvalidTag"), ("k=\(tooLongValue)", "InvalidTag"),
                ("k=1&k=2", "InvalidTag"), ("=v", "InvalidTag"), ("k=%ZZ", "InvalidArgument"), (eleven, "BadRequest"),
            ] {
                let r = try await client.send("PUT", bucket: "tag", key: "t", headers: ["x-oss-tagging": header], body: [1])
                #expect(r.status == 400 && r.errorCode == code, "\(header.prefix(40)): \(r.text.prefix(200))")
            }
            let body = Array("<Tagging><TagSet><Tag><Key>a&lt;b</Key><Value>v</Value></Tag></TagSet></Tagging>".utf8)
            #expect(try await client.send("PUT", bucket: "tag", key: "t", body: [1]).status == 200)
            let r = try await client.send("PUT", bucket: "tag", key: "t", query: ["tagging": ""], body: body)
            #expect(r.status == 400 && r.errorCode == "InvalidTag")
            let malformed = try await client.send("PUT", bucket: "tag", key: "t", query: ["tagging": ""], body: Array("<Tag".utf8))
            #expect(malformed.status == 400 && malformed.errorCode == "MalformedXML")
            let storage = try await client.send("PUT", bucket: "tag", key: "s", headers: ["x-oss-storage-class": "Frozen"], body: [1])
            #expect(storage.status == 400 && storage.errorCode == "InvalidArgument")
            let symlink = try await client.send(
                "PUT", bucket: "tag", key: "l", query: ["symlink": ""], headers: ["x-oss-symlink-target": "%2Fabs"])
            #expect(symlink.status == 400 && symlink.errorCode == "InvalidObjectName")
        }
    }

    @Test func deleteMultipleObjectsLimits() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["mdl"])) { server in
            let client = TestClient(server)
            func delete(_ keys: [String]) async throws -> TestClient.Response {
                let objects = keys.map { "<Object><Key>\($0)</Key></Object>" }.joined()
                return try await client.send(
                    "POST", bucket: "mdl", query: ["delete": ""], body: Array("<Delete>\(objects)</Delete>".utf8))
            }
            #expect(try await delete((0..<1000).map { "k\($0)" }).status == 200)
            let tooMany = try await delete((0..<1001).map { "k\($0)" })
            #expect(tooMany.status == 400 && tooMany.errorCode == "MalformedXML")
            let none = try await delete([])
            #expect(none.status == 400 && none.errorCode == "MalformedXML")
        }
    }

    @Test func appendAndRestoreStates() async throws {
        var configuration = LocalOSSServerConfiguration(buckets: ["apd"])
        configuration.restoreDelay = 3600
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            let first = try await client.send("POST", bucket: "apd", key: "a", query: ["append": "", "position": "0"], body: [1, 2, 3])
            #expect(first.status == 200 && first.header("x-oss-next-append-position") == "3")
            let bad = try await client.send("POST", bucket: "apd", key: "a", query: ["append": "", "position": "-1"], body: [1])
            #expect(bad.status == 400 && bad.errorCode == "InvalidArgument")
            let wrong = try await client.send("POST", bucket: "apd", key: "a", query: ["append": "", "position": "0"], body: [1])
            #expect(wrong.status == 409 && wrong.errorCode == "PositionNotEqualToLength")
            #expect(wrong.header("x-oss-next-append-position") == "3")

            #expect(try await client.send(
                "PUT", bucket: "apd", key: "cold", headers: ["x-oss-storage-class": "ColdArchive"], body: [1]).status == 200)
            #expect(try await client.send("GET", bucket: "apd", key: "cold").errorCode == "InvalidObjectState")
            #expect(try await client.send("POST", bucket: "apd", key: "cold", query: ["restore": ""]).status == 202)
            let head = try await client.send("HEAD", bucket: "apd", key: "cold")
            #expect(head.header("x-oss-restore") == "ongoing-request=\"true\"")
            #expect(head.header("x-oss-storage-class") == "ColdArchive")
            let again = try await client.send("POST", bucket: "apd", key: "cold", query: ["restore": ""])
            #expect(again.status == 409 && again.errorCode == "RestoreAlreadyInProgress")
            #expect(try await client.send("GET", bucket: "apd", key: "cold").errorCode == "InvalidObjectState")
        }
    }
}
