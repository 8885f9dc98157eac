import Crypto
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import Testing

@Suite struct MultipartTests {
    static func initiate(_ client: TestClient, bucket: String, key: String) async throws -> String {
        let r = try await client.send("POST", bucket: bucket, key: key, query: ["uploads": ""])
        #expect(r.status == 200, "\(r.text)")
        return try #require(xmlValue("UploadId", in: r.text))
    }

    static func completeBody(_ parts: [(Int, String)]) -> [UInt8] {
        var xml = "<CompleteMultipartUpload>"
        for (n, etag) in parts { xml += "<Part><PartNumber>\(n)</PartNumber><ETag>\(etag)</ETag></Part>" }
        xml += "</CompleteMultipartUpload>"
        return Array(xml.utf8)
    }

    @Test(arguments: TestClient.Version.allCases)
    func uploadListComplete(version: TestClient.Version) async throws {
        try await withLocalOSSServer(.init(buckets: ["mpu"])) { server in
            let client = TestClient(server, version: version)
            let key = "big/archive.bin"
            let id = try await Self.initiate(client, bucket: "mpu", key: key)
            let parts = [randomBytes(102_400), randomBytes(150_000), randomBytes(10)]
            var etags: [String] = []
            for (i, data) in parts.enumerated() {
                let r = try await client.send(
                    "PUT", bucket: "mpu", key: key, query: ["partNumber": String(i + 1), "uploadId": id], body: data)
                #expect(r.status == 200)
                #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(data)))
                etags.append(try #require(r.header("ETag")))
            }
            // re-uploading a part replaces it
            let replaced = try await client.send(
                "PUT", bucket: "mpu", key: key, query: ["partNumber": "3", "uploadId": id], body: parts[2])
            #expect(replaced.header("ETag") == etags[2])
            let list = try await client.send("GET", bucket: "mpu", key: key, query: ["uploadId": id])
            #expect(xmlValues("PartNumber", in: list.text) == ["1", "2", "3"])
            #expect(xmlValues("Size", in: list.text) == ["102400", "150000", "10"])
            #expect(xmlValues("HashCrc64ecma", in: list.text) == parts.map { String(CRC64.checksum($0)) })
            #expect(xmlValue("NextPartNumberMarker", in: list.text) == "3")
            #expect(xmlValue("IsTruncated", in: list.text) == "false")
            #expect(xmlValue("LastModified", in: list.text)?.hasSuffix(".000Z") == true)

            let uploads = try await client.send("GET", bucket: "mpu", query: ["uploads": ""])
            #expect(xmlValues("UploadId", in: uploads.text).contains(id))
            #expect(xmlValue("NextKeyMarker", in: uploads.text) != nil)
            #expect(xmlValue("NextUploadIdMarker", in: uploads.text) != nil)

            // errors: order, unknown part, wrong etag, small part
            var r = try await client.send(
                "POST", bucket: "mpu", key: key, query: ["uploadId": id],
                body: Self.completeBody([(2, etags[1]), (1, etags[0])]))
            #expect(r.status == 400 && r.errorCode == "InvalidPartOrder")
            r = try await client.send(
                "POST", bucket: "mpu", key: key, query: ["uploadId": id], body: Self.completeBody([(9, etags[0])]))
            #expect(r.status == 400 && r.errorCode == "InvalidPart")
            r = try await client.send(
                "POST", bucket: "mpu", key: key, query: ["uploadId": id],
                body: Self.completeBody([(3, etags[2]), (4, etags[2])]))
            #expect(r.status == 400 && r.errorCode == "InvalidPart")
            r = try await client.send(
                "POST", bucket: "mpu", key: key, query: ["uploadId": id],
                body: Self.completeBody([(1, etags[0]), (3, etags[2]), (2, etags[1])]))
            #expect(r.status == 400 && r.errorCode == "InvalidPartOrder")
            r = try await client.send("POST", bucket: "mpu", key: key, query: ["uploadId": id], body: Array("<oops".utf8))
            #expect(r.status == 400 && r.errorCode == "MalformedXML")
            r = try await client.send(
                "PUT", bucket: "mpu", key: key, query: ["partNumber": "10001", "uploadId": id], body: [1])
            #expect(r.status == 400 && r.errorCode == "InvalidArgument")

            // complete (ETags unquoted and lower-case are accepted)
            let loose = etags.map { String($0.dropFirst().dropLast()).lowercased() }
            r = try await client.send(
                "POST", bucket: "mpu", key: key, query: ["uploadId": id],
                body: Self.completeBody([(1, loose[0]), (2, etags[1]), (3, etags[2])]))
            #expect(r.status == 200, "\(r.text)")
            let all = parts.flatMap { $0 }
            #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)))
            var md5s: [UInt8] = []
            for p in parts { md5s += Array(Insecure.MD5.hash(data: p)) }
            let expected = Insecure.MD5.hash(data: md5s).map { String(format: "%02X", $0) }.joined()
            #expect(r.header("ETag") == "\"\(expected)-3\"")
            #expect(xmlValue("ETag", in: r.text) == "&quot;\(expected)-3&quot;")
            let get = try await client.send("GET", bucket: "mpu", key: key)
            #expect(get.body == all)
            #expect(get.header("x-oss-object-type") == "Multipart")
            let after = try await client.send("GET", bucket: "mpu", key: key, query: ["uploadId": id])
            #expect(after.status == 404 && after.errorCode == "NoSuchUpload")
        }
    }

    @Test func entityTooSmallAndAbort() async throws {
        try await withLocalOSSServer(.init(buckets: ["mpu"])) { server in
            let client = TestClient(server)
            let id = try await Self.initiate(client, bucket: "mpu", key: "small")
            var etags: [String] = []
            for n in 1...2 {
                let r = try await client.send(
                    "PUT", bucket: "mpu", key: "small", query: ["partNumber": String(n), "uploadId": id], body: [1, 2])
                etags.append(try #require(r.header("ETag")))
            }
            let r = try await client.send(
                "POST", bucket: "mpu", key: "small", query: ["uploadId": id],
                body: Self.completeBody([(1, etags[0]), (2, etags[1])]))
            #expect(r.status == 400 && r.errorCode == "EntityTooSmall")
            let wrongDigest = try await client.send(
                "POST", bucket: "mpu", key: "small", query: ["uploadId": id], headers: ["content-md5": "1B2M2Y8AsgTpgAmY7PhCfg=="],
                body: Self.completeBody([(1, etags[0])]))
            #expect(wrongDigest.status == 400 && wrongDigest.errorCode == "InvalidDigest")
            #expect(try await client.send("DELETE", bucket: "mpu", key: "small", query: ["uploadId": id]).status == 204)
            let gone = try await client.send("DELETE", bucket: "mpu", key: "small", query: ["uploadId": id])
            #expect(gone.status == 404 && gone.errorCode == "NoSuchUpload")
            let part = try await client.send(
                "PUT", bucket: "mpu", key: "small", query: ["partNumber": "1", "uploadId": id], body: [1])
            #expect(part.errorCode == "NoSuchUpload")
        }
    }

    @Test func listPartsPaging() async throws {
        try await withLocalOSSServer(.init(buckets: ["mpu"])) { server in
            let client = TestClient(server)
            let id = try await Self.initiate(client, bucket: "mpu", key: "paged")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for n in stride(from: worker + 1, through: 1005, by: 8) {
                            let r = try await client.send(
                                "PUT", bucket: "mpu", key: "paged", query: ["partNumber": String(n), "uploadId": id],
                                body: [UInt8(n & 0xFF)])
                            #expect(r.status == 200)
                        }
                    }
                }
                try await group.waitForAll()
            }
            var page = try await client.send("GET", bucket: "mpu", key: "paged", query: ["uploadId": id])
            #expect(xmlValues("PartNumber", in: page.text).count == 1000)
            #expect(xmlValue("IsTruncated", in: page.text) == "true")
            #expect(xmlValue("NextPartNumberMarker", in: page.text) == "1000")
            #expect(xmlValue("MaxParts", in: page.text) == "1000")
            page = try await client.send(
                "GET", bucket: "mpu", key: "paged", query: ["uploadId": id, "part-number-marker": "1000"])
            #expect(xmlValues("PartNumber", in: page.text) == ["1001", "1002", "1003", "1004", "1005"])
            #expect(xmlValue("IsTruncated", in: page.text) == "false")
            page = try await client.send(
                "GET", bucket: "mpu", key: "paged", query: ["uploadId": id, "part-number-marker": "", "max-parts": "2"])
            #expect(xmlValues("PartNumber", in: page.text) == ["1", "2"])
            #expect(xmlValue("NextPartNumberMarker", in: page.text) == "2")
            page = try await client.send(
                "GET", bucket: "mpu", key: "paged", query: ["uploadId": id, "max-parts": "5000"])
            #expect(xmlValue("MaxParts", in: page.text) == "1000")
        }
    }

    @Test func uploadSurvivesRestart() async throws {
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let configuration = LocalOSSServerConfiguration(dataDirectory: dir, buckets: ["persist"])
        let part1 = randomBytes(102_400)
        let part2 = randomBytes(5)
        let (id, etag1) = try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            let id = try await Self.initiate(client, bucket: "persist", key: "resumed")
            let r = try await client.send(
                "PUT", bucket: "persist", key: "resumed", query: ["partNumber": "1", "uploadId": id], body: part1)
            _ = try await client.send("PUT", bucket: "persist", key: "other", body: [9, 9])
            return (id, try #require(r.header("ETag")))
        }
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server, version: .v4)
            let listed = try await client.send("GET", bucket: "persist", key: "resumed", query: ["uploadId": id])
            #expect(xmlValues("PartNumber", in: listed.text) == ["1"])
            let r2 = try await client.send(
                "PUT", bucket: "persist", key: "resumed", query: ["partNumber": "2", "uploadId": id], body: part2)
            let etag2 = try #require(r2.header("ETag"))
            let done = try await client.send(
                "POST", bucket: "persist", key: "resumed", query: ["uploadId": id],
                body: Self.completeBody([(1, etag1), (2, etag2)]))
            #expect(done.status == 200, "\(done.text)")
            #expect(try await client.send("GET", bucket: "persist", key: "resumed").body == part1 + part2)
            #expect(try await client.send("GET", bucket: "persist", key: "other").body == [9, 9])
        }
    }

    @Test func aPartSentAgainReplacesTheFirstAcrossARestart() async throws {
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let configuration = LocalOSSServerConfiguration(dataDirectory: dir, buckets: ["persist"])
        let first = randomBytes(102_400)
        let second = randomBytes(102_400)
        let id = try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            let id = try await Self.initiate(client, bucket: "persist", key: "again")
            for body in [first, second] {
                let r = try await client.send(
                    "PUT", bucket: "persist", key: "again", query: ["partNumber": "1", "uploadId": id], body: body)
                #expect(r.status == 200)
            }
            return id
        }
        // One data file for part 1, whose name records it (no separate record file per part).
        let uploadDir = dir.appendingPathComponent("buckets/persist/uploads/\(id)")
        let files = try FileManager.default.contentsOfDirectory(atPath: uploadDir.path).filter { $0.hasPrefix("part-") }
        #expect(files.count == 1, "\(files)")
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            let listed = try await client.send("GET", bucket: "persist", key: "again", query: ["uploadId": id])
            let etag = Insecure.MD5.hash(data: second).map { String(format: "%02X", $0) }.joined()
            #expect(xmlValues("ETag", in: listed.text) == ["&quot;\(etag)&quot;"])
            let done = try await client.send(
                "POST", bucket: "persist", key: "again", query: ["uploadId": id],
                body: Self.completeBody([(1, "\"\(etag)\"")]))
            #expect(done.status == 200, "\(done.text)")
            #expect(try await client.send("GET", bucket: "persist", key: "again").body == second)
        }
    }
}
