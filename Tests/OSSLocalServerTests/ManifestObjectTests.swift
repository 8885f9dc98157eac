import Crypto
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Completed multipart objects are kept as their part files plus a manifest: reads, checksums, conditions and
/// the freeing of files all work across part boundaries.
@Suite struct ManifestObjectTests {
    static let sizes = [102_400, 150_000, 7]

    /// Uploads parts of the given sizes and completes them (only `listed`, if given); returns the object's bytes.
    static func completeUpload(
        _ client: TestClient, bucket: String, key: String, sizes: [Int], listed: [Int]? = nil
    ) async throws -> [UInt8] {
        let id = try await MultipartTests.initiate(client, bucket: bucket, key: key)
        var parts: [(Int, String, [UInt8])] = []
        for (i, size) in sizes.enumerated() {
            let data = randomBytes(size)
            let r = try await client.send(
                "PUT", bucket: bucket, key: key, query: ["partNumber": String(i + 1), "uploadId": id], body: data)
            #expect(r.status == 200)
            parts.append((i + 1, try #require(r.header("ETag")), data))
        }
        let chosen = parts.filter { listed?.contains($0.0) ?? true }
        let r = try await client.send(
            "POST", bucket: bucket, key: key, query: ["uploadId": id],
            body: MultipartTests.completeBody(chosen.map { ($0.0, $0.1) }))
        #expect(r.status == 200, "\(r.text)")
        return chosen.flatMap(\.2)
    }

    static func dataFiles(_ dir: URL, bucket: String) -> [String] {
        let objects = dir.appendingPathComponent("buckets/\(bucket)/objects").path
        return ((try? FileManager.default.contentsOfDirectory(atPath: objects)) ?? []).filter { $0.hasSuffix(".data") }
    }

    static func uploadDirectories(_ dir: URL, bucket: String) -> [String] {
        let uploads = dir.appendingPathComponent("buckets/\(bucket)/uploads").path
        return (try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []
    }

    @Test func rangesChecksumsAndConditionsAcrossParts() async throws {
        try await withLocalOSSServer(.init(buckets: ["mfst"])) { server in
            let client = TestClient(server)
            let all = try await Self.completeUpload(client, bucket: "mfst", key: "obj", sizes: Self.sizes)
            let whole = try await client.send("GET", bucket: "mfst", key: "obj")
            #expect(whole.body == all)
            #expect(whole.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)))
            let etag = try #require(whole.header("ETag"))
            #expect(etag.hasSuffix("-3\""))
            let boundary1 = Self.sizes[0]
            let boundary2 = Self.sizes[0] + Self.sizes[1]
            let ranges: [(String, Range<Int>)] = [
                ("bytes=\(boundary1 - 10)-\(boundary1 + 9)", (boundary1 - 10)..<(boundary1 + 10)),
                ("bytes=\(boundary1)-\(boundary1)", boundary1..<(boundary1 + 1)),
                ("bytes=\(boundary1 - 1)-\(boundary1 - 1)", (boundary1 - 1)..<boundary1),
                ("bytes=5-\(all.count - 2)", 5..<(all.count - 1)),
                ("bytes=\(boundary2 - 3)-", (boundary2 - 3)..<all.count),
                ("bytes=-150010", (all.count - 150_010)..<all.count),
                ("bytes=-7", boundary2..<all.count),
            ]
            for (header, expected) in ranges {
                let r = try await client.send("GET", bucket: "mfst", key: "obj", headers: ["range": header])
                #expect(r.status == 206, "\(header)")
                #expect(r.body == Array(all[expected]), "\(header)")
                #expect(
                    r.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(all.count)")
            }
            let head = try await client.send("HEAD", bucket: "mfst", key: "obj")
            #expect(head.header("Content-Length") == String(all.count))
            #expect(head.header("ETag") == etag)
            #expect(head.header("x-oss-object-type") == "Multipart")
            let meta = try await client.send("HEAD", bucket: "mfst", key: "obj", query: ["objectMeta": ""])
            #expect(meta.header("x-oss-content-length") == String(all.count))
            let match = try await client.send("GET", bucket: "mfst", key: "obj", headers: ["if-match": etag])
            #expect(match.status == 200 && match.body == all)
            let unchanged = try await client.send("GET", bucket: "mfst", key: "obj", headers: ["if-none-match": etag])
            #expect(unchanged.status == 304)
            let mismatch = try await client.send("GET", bucket: "mfst", key: "obj", headers: ["if-match": "\"0-1\""])
            #expect(mismatch.status == 412)
        }
    }

    @Test func overwriteDeleteAndUnlistedPartsFreeFiles() async throws {
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        try await withLocalOSSServer(.init(dataDirectory: dir, buckets: ["mfst"])) { server in
            let client = TestClient(server)
            // Parts 2 and 4 are not listed: they are freed with the upload.
            let first = try await Self.completeUpload(
                client, bucket: "mfst", key: "k", sizes: [102_400, 102_400, 102_400, 9], listed: [1, 3])
            #expect(try await client.send("GET", bucket: "mfst", key: "k").body == first)
            #expect(Self.dataFiles(dir, bucket: "mfst").count == 2)
            #expect(Self.uploadDirectories(dir, bucket: "mfst").isEmpty)
            // Overwritten by another multipart object: the old parts are freed.
            let second = try await Self.completeUpload(client, bucket: "mfst", key: "k", sizes: [102_400, 102_400, 3])
            #expect(try await client.send("GET", bucket: "mfst", key: "k").body == second)
            #expect(Self.dataFiles(dir, bucket: "mfst").count == 3)
            // Overwritten by a single PUT: one data file.
            #expect(try await client.send("PUT", bucket: "mfst", key: "k", body: [1, 2, 3]).status == 200)
            #expect(try await client.send("GET", bucket: "mfst", key: "k").body == [1, 2, 3])
            #expect(Self.dataFiles(dir, bucket: "mfst").count == 1)
            // A single-file object overwritten by a multipart one, then deleted.
            let third = try await Self.completeUpload(client, bucket: "mfst", key: "k", sizes: [102_400, 1])
            #expect(try await client.send("GET", bucket: "mfst", key: "k").body == third)
            #expect(Self.dataFiles(dir, bucket: "mfst").count == 2)
            #expect(try await client.send("DELETE", bucket: "mfst", key: "k").status == 204)
            #expect(Self.dataFiles(dir, bucket: "mfst").isEmpty)
            // Abort frees every part.
            let id = try await MultipartTests.initiate(client, bucket: "mfst", key: "aborted")
            _ = try await client.send(
                "PUT", bucket: "mfst", key: "aborted", query: ["partNumber": "1", "uploadId": id], body: [1])
            #expect(try await client.send("DELETE", bucket: "mfst", key: "aborted", query: ["uploadId": id]).status == 204)
            #expect(Self.uploadDirectories(dir, bucket: "mfst").isEmpty)
        }
    }

    @Test func restartSweepsOrphansAndKeepsManifestObjects() async throws {
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let configuration = LocalOSSServerConfiguration(dataDirectory: dir, buckets: ["mfst"])
        let (all, liveId) = try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            let all = try await Self.completeUpload(client, bucket: "mfst", key: "kept", sizes: [102_400, 5])
            let liveId = try await MultipartTests.initiate(client, bucket: "mfst", key: "live")
            _ = try await client.send(
                "PUT", bucket: "mfst", key: "live", query: ["partNumber": "1", "uploadId": liveId], body: [4])
            return (all, liveId)
        }
        // What a crash can leave: links not yet committed, a part file without its record, a completed upload's
        // directory (named by the object's `completedUpload`), and an upload directory without a record.
        let fm = FileManager.default
        let bucketDir = dir.appendingPathComponent("buckets/mfst")
        let objects = bucketDir.appendingPathComponent("objects")
        let kept = try #require(
            fm.contentsOfDirectory(atPath: objects.path).first { $0.hasSuffix(".json") }.map {
                try JSONSerialization.jsonObject(with: Data(contentsOf: objects.appendingPathComponent($0))) as? [String: Any]
            })
        let completed = try #require(kept?["completedUpload"] as? String)
        fm.createFile(atPath: objects.appendingPathComponent("abc.orphan.data").path, contents: Data([1]))
        let live = bucketDir.appendingPathComponent("uploads/\(liveId)")
        fm.createFile(atPath: live.appendingPathComponent("part-2.orphan.data").path, contents: Data([2]))
        for stale in [completed, "ABCDEF"] {
            let staleDir = bucketDir.appendingPathComponent("uploads/\(stale)")
            try fm.createDirectory(at: staleDir, withIntermediateDirectories: true)
            fm.createFile(atPath: staleDir.appendingPathComponent("part-1.x.data").path, contents: Data([3]))
        }
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            #expect(try await client.send("GET", bucket: "mfst", key: "kept").body == all)
            #expect(Self.dataFiles(dir, bucket: "mfst").count == 2)
            #expect(Self.uploadDirectories(dir, bucket: "mfst") == [liveId])
            #expect(try fm.contentsOfDirectory(atPath: live.path).filter { $0.hasSuffix(".data") }.count == 1)
            let parts = try await client.send("GET", bucket: "mfst", key: "live", query: ["uploadId": liveId])
            #expect(xmlValues("PartNumber", in: parts.text) == ["1"])
        }
    }
}
