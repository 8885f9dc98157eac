import Crypto
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSSigning
import Testing

@Suite struct ObjectTests {
    @Test(arguments: TestClient.Version.allCases)
    func putGetHeadDelete(version: TestClient.Version) async throws {
        try await withLocalOSSServer(.init(buckets: ["objects"])) { server in
            let client = TestClient(server, version: version)
            let data = randomBytes(200_000)
            let md5 = Data(Insecure.MD5.hash(data: data)).base64EncodedString()
            let key = "dir/sub dir/ünï+a=b&c~%.bin"
            let put = try await client.send(
                "PUT", bucket: "objects", key: key,
                headers: ["content-md5": md5, "content-type": "application/x-test", "x-oss-meta-color": "Blue"],
                body: data)
            #expect(put.status == 200, "\(put.text)")
            let hex = Insecure.MD5.hash(data: data).map { String(format: "%02X", $0) }.joined()
            #expect(put.header("ETag") == "\"\(hex)\"")
            #expect(put.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(data)))
            #expect(put.header("x-oss-request-id")?.count == 24)

            let get = try await client.send("GET", bucket: "objects", key: key)
            #expect(get.status == 200)
            #expect(get.body == data)
            #expect(get.header("Content-Type") == "application/x-test")
            #expect(get.header("x-oss-meta-color") == "Blue")
            #expect(get.header("x-oss-object-type") == "Normal")
            let lastModified = try #require(get.header("Last-Modified"))
            #expect(OSSDateFormat.parseRFC1123(lastModified) != nil)

            let head = try await client.send("HEAD", bucket: "objects", key: key)
            #expect(head.status == 200)
            #expect(head.header("Content-Length") == "200000")
            #expect(head.body.isEmpty)

            let del = try await client.send("DELETE", bucket: "objects", key: key)
            #expect(del.status == 204)
            let missing = try await client.send("HEAD", bucket: "objects", key: key)
            #expect(missing.status == 404)
            #expect(missing.errorCode == "NoSuchKey")
            #expect(try await client.send("DELETE", bucket: "objects", key: key).status == 204)
        }
    }

    @Test func contentMD5Mismatch() async throws {
        try await withLocalOSSServer(.init(buckets: ["objects"])) { server in
            let client = TestClient(server)
            let r = try await client.send(
                "PUT", bucket: "objects", key: "k", headers: ["content-md5": "1B2M2Y8AsgTpgAmY7PhCfg=="], body: [1, 2, 3])
            #expect(r.status == 400)
            #expect(r.errorCode == "InvalidDigest")
            #expect(try await client.send("HEAD", bucket: "objects", key: "k").status == 404)
        }
    }

    @Test func ranges() async throws {
        try await withLocalOSSServer(.init(buckets: ["objects"])) { server in
            let client = TestClient(server)
            let data = randomBytes(1000)
            _ = try await client.send("PUT", bucket: "objects", key: "r", body: data)
            func get(_ range: String, standard: Bool = false) async throws -> TestClient.Response {
                var headers = ["range": range]
                if standard { headers["x-oss-range-behavior"] = "standard" }
                return try await client.send("GET", bucket: "objects", key: "r", headers: headers)
            }
            var r = try await get("bytes=10-19")
            #expect(r.status == 206)
            #expect(r.body == Array(data[10...19]))
            #expect(r.header("Content-Range") == "bytes 10-19/1000")
            r = try await get("bytes=-100")
            #expect(r.status == 206 && r.body == Array(data[900...]))
            r = try await get("bytes=990-")
            #expect(r.status == 206 && r.body == Array(data[990...]))
            // legacy: out of bounds or malformed ranges give the whole object
            for range in ["bytes=0-1000", "bytes=1000-", "byte=0-1", "bytes=5-2"] {
                r = try await get(range)
                #expect(r.status == 200, "\(range)")
                #expect(r.body == data, "\(range)")
                #expect(r.header("Content-Range") == nil)
            }
            // standard: the end is truncated; a start past the end is 416
            r = try await get("bytes=500-2000", standard: true)
            #expect(r.status == 206)
            #expect(r.header("Content-Range") == "bytes 500-999/1000")
            #expect(r.body == Array(data[500...]))
            r = try await get("bytes=1000-", standard: true)
            #expect(r.status == 416)
            #expect(r.errorCode == "InvalidRange")
        }
    }

    @Test func conditionals() async throws {
        try await withLocalOSSServer(.init(buckets: ["objects"])) { server in
            let client = TestClient(server)
            let put = try await client.send("PUT", bucket: "objects", key: "c", body: [1, 2, 3])
            let etag = try #require(put.header("ETag"))
            let unquoted = String(etag.dropFirst().dropLast())
            let past = OSSDateFormat.rfc1123(Date().addingTimeInterval(-3600))
            let future = OSSDateFormat.rfc1123(Date().addingTimeInterval(3600))
            func status(_ headers: [String: String], method: String = "GET") async throws -> TestClient.Response {
                try await client.send(method, bucket: "objects", key: "c", headers: headers)
            }
            #expect(try await status(["if-match": etag]).status == 200)
            #expect(try await status(["if-match": unquoted.lowercased()]).status == 200)
            let failed = try await status(["if-match": "\"0000\""])
            #expect(failed.status == 412 && failed.errorCode == "PreconditionFailed")
            let headFailed = try await status(["if-match": "\"0000\""], method: "HEAD")
            #expect(headFailed.status == 412 && headFailed.errorCode == "PreconditionFailed")
            #expect(try await status(["if-unmodified-since": past]).status == 412)
            #expect(try await status(["if-unmodified-since": future]).status == 200)
            #expect(try await status(["if-none-match": etag]).status == 304)
            #expect(try await status(["if-none-match": "\"other\""]).status == 200)
            #expect(try await status(["if-modified-since": future]).status == 304)
            #expect(try await status(["if-modified-since": past]).status == 200)
            #expect(try await status(["if-modified-since": "not a date"]).status == 200)
            // If-Match wins over If-Unmodified-Since; If-None-Match over If-Modified-Since
            #expect(try await status(["if-match": etag, "if-unmodified-since": past]).status == 200)
            #expect(try await status(["if-none-match": "\"other\"", "if-modified-since": future]).status == 200)
        }
    }

    @Test func bucketsAndListing() async throws {
        try await withLocalOSSServer() { server in
            let client = TestClient(server, version: .v4)
            #expect(try await client.send("PUT", bucket: "listing").status == 200)
            for key in ["a/1", "a/2", "a/b/3", "b", "c d"] {
                #expect(try await client.send("PUT", bucket: "listing", key: key, body: [0]).status == 200)
            }
            let buckets = try await client.send("GET")
            #expect(xmlValues("Name", in: buckets.text) == ["listing"])
            #expect(xmlValue("Region", in: buckets.text) == "cn-hangzhou")
            var r = try await client.send("GET", bucket: "listing", query: ["list-type": "2", "delimiter": "/"])
            #expect(xmlValues("Key", in: r.text) == ["b", "c d"])
            #expect(xmlValues("Prefix", in: r.text).contains("a/"))
            #expect(xmlValue("KeyCount", in: r.text) == "3")
            r = try await client.send("GET", bucket: "listing", query: ["list-type": "2", "max-keys": "2"])
            #expect(xmlValues("Key", in: r.text) == ["a/1", "a/2"])
            #expect(xmlValue("IsTruncated", in: r.text) == "true")
            let token = try #require(xmlValue("NextContinuationToken", in: r.text))
            r = try await client.send(
                "GET", bucket: "listing", query: ["list-type": "2", "continuation-token": token, "encoding-type": "url"])
            #expect(xmlValues("Key", in: r.text) == ["a%2Fb%2F3", "b", "c%20d"])
            r = try await client.send("GET", bucket: "listing", query: ["marker": "a/2", "max-keys": "1"])
            #expect(xmlValues("Key", in: r.text) == ["a/b/3"])
            #expect(xmlValue("NextMarker", in: r.text) == "a/b/3")
            let notEmpty = try await client.send("DELETE", bucket: "listing")
            #expect(notEmpty.status == 409 && notEmpty.errorCode == "BucketNotEmpty")
            for key in ["a/1", "a/2", "a/b/3", "b", "c d"] {
                _ = try await client.send("DELETE", bucket: "listing", key: key)
            }
            #expect(try await client.send("DELETE", bucket: "listing").status == 204)
            let gone = try await client.send("GET", bucket: "listing", key: "x")
            #expect(gone.status == 404 && gone.errorCode == "NoSuchBucket")
        }
    }

    @Test func virtualHostAddressing() async throws {
        try await withLocalOSSServer(.init(buckets: ["vhost"], virtualHostDomains: ["oss.test"])) { server in
            let client = TestClient(server)
            _ = try await client.send("PUT", bucket: "vhost", key: "dir/file", body: [5, 6])
            for host in ["vhost.localhost:\(server.port)", "vhost.127.0.0.1", "vhost.oss.test"] {
                var request = OSSSignableRequest(method: "GET", bucket: "vhost", key: "dir/file")
                try OSSSignerV1().sign(&request, credentials: server.credentials, date: Date())
                var headers = request.headers
                headers["host"] = host
                let r = try await client.execute("GET", url: server.endpoint.absoluteString + "/dir%2Ffile", headers: headers)
                #expect(r.status == 200 && r.body == [5, 6], "\(host): \(r.text)")
            }
        }
    }
}
