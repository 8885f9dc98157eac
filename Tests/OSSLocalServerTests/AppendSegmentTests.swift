import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// AppendObject writes only the appended bytes (one segment file per append, small ones merged now and then),
/// chains the CRC-64, and frees every segment file when the object is overwritten or deleted.
@Suite struct AppendSegmentTests {
    /// Appends `data` at `position`; returns the response, checking it succeeded.
    @discardableResult
    static func append(
        _ client: TestClient, bucket: String, key: String, at position: Int, _ data: [UInt8],
        headers: [String: String] = [:]
    ) async throws -> TestClient.Response {
        let r = try await client.send(
            "POST", bucket: bucket, key: key, query: ["append": "", "position": String(position)], headers: headers,
            body: data)
        #expect(r.status == 200, "\(r.text)")
        #expect(r.header("x-oss-next-append-position") == String(position + data.count))
        return r
    }

    /// The bucket's data files and their sizes.
    static func dataFileSizes(_ dir: URL, bucket: String) -> [String: Int] {
        let objects = dir.appendingPathComponent("buckets/\(bucket)/objects")
        var sizes: [String: Int] = [:]
        for name in ManifestObjectTests.dataFiles(dir, bucket: bucket) {
            let attributes = try? FileManager.default.attributesOfItem(atPath: objects.appendingPathComponent(name).path)
            sizes[name] = (attributes?[.size] as? NSNumber)?.intValue ?? -1
        }
        return sizes
    }

    /// Runs `body` with a client of a server over a fresh data directory (removed afterwards) holding bucket
    /// `apnd`, whose appends merge segments below `threshold` bytes.
    static func withAppendServer(
        threshold: Int64, isolation: isolated (any Actor)? = #isolation,
        _ body: (TestClient, URL) async throws -> Void
    ) async throws {
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = LocalOSSServerConfiguration(dataDirectory: dir, buckets: ["apnd"])
        configuration.appendCompactionBytes = threshold
        try await withLocalOSSServer(configuration) { server in try await body(TestClient(server), dir) }
    }

    @Test func anAppendWritesOnlyItsBytesAndKeepsEarlierFiles() async throws {
        try await Self.withAppendServer(threshold: 1000) { client, dir in // every append below is at least this big: none is merged
            var all: [UInt8] = []
            var files: [String: Int] = [:]
            for size in [5000, 3000, 7000, 1000] {
                let data = randomBytes(size)
                let r = try await Self.append(client, bucket: "apnd", key: "log", at: all.count, data)
                all += data
                #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)))
                let now = Self.dataFileSizes(dir, bucket: "apnd")
                // The earlier files are untouched (same names, same sizes) and one new file holds just this append.
                #expect(now.filter { files[$0.key] == nil }.map(\.value) == [size])
                #expect(files.allSatisfy { now[$0.key] == $0.value })
                files = now
            }
            #expect(files.values.reduce(0, +) == all.count)
            #expect(try await client.send("GET", bucket: "apnd", key: "log").body == all)
        }
    }

    @Test func manySmallAppendsReadBackWholeRangedAndChecksummed() async throws {
        try await Self.withAppendServer(threshold: 4096) { client, dir in
            var all: [UInt8] = []
            var generator = SystemRandomNumberGenerator()
            var etags = Set<String>()
            for i in 0..<300 {
                // Mostly tiny appends, a few bigger than the merge threshold and a few empty ones.
                let size = i % 50 == 7 ? 5000 : (i % 61 == 3 ? 0 : Int.random(in: 1...200, using: &generator))
                let data = randomBytes(size)
                let r = try await Self.append(
                    client, bucket: "apnd", key: "many", at: all.count, data,
                    headers: i == 0 ? ["content-type": "text/plain", "x-oss-meta-kind": "log"] : [:])
                all += data
                #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)), "append \(i)")
                etags.insert(try #require(r.header("ETag")))
            }
            #expect(etags.count > 290)  // the ETag changes with (nearly) every append
            let sizes = Self.dataFileSizes(dir, bucket: "apnd")
            #expect(sizes.values.reduce(0, +) == all.count)  // no stale copies left behind
            // Six appends of 5000 bytes stay whole; the small ones between them are merged into a few files.
            #expect(sizes.count <= 6 + 7 * 12, "\(sizes.count) segment files")
            let whole = try await client.send("GET", bucket: "apnd", key: "many")
            #expect(whole.body == all)
            #expect(whole.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)))
            for (first, last) in [(0, 0), (1, 4095), (4000, 9000), (all.count - 5001, all.count - 1), (123, all.count - 7)] {
                let r = try await client.send("GET", bucket: "apnd", key: "many", headers: ["range": "bytes=\(first)-\(last)"])
                #expect(r.status == 206)
                #expect(r.body == Array(all[first...last]), "bytes=\(first)-\(last)")
            }
            let head = try await client.send("HEAD", bucket: "apnd", key: "many")
            #expect(head.header("Content-Length") == String(all.count))
            #expect(head.header("x-oss-object-type") == "Appendable")
            #expect(head.header("Content-Type") == "text/plain")
            #expect(head.header("x-oss-meta-kind") == "log")
            #expect(head.header("x-oss-next-append-position") == String(all.count))
            #expect(head.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)))
        }
    }

    @Test func copyOverwriteAndDeleteFreeEverySegment() async throws {
        try await Self.withAppendServer(threshold: 100) { client, dir in
            var all: [UInt8] = []
            for _ in 0..<5 {
                let data = randomBytes(1000)
                try await Self.append(client, bucket: "apnd", key: "src", at: all.count, data)
                all += data
            }
            #expect(Self.dataFileSizes(dir, bucket: "apnd").count == 5)
            // A copy is a new object with its own file; appending to it keeps that file and adds one.
            let copy = try await client.send(
                "PUT", bucket: "apnd", key: "copy", headers: ["x-oss-copy-source": "/apnd/src"])
            #expect(copy.status == 200, "\(copy.text)")
            #expect(copy.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all)))
            #expect(Self.dataFileSizes(dir, bucket: "apnd").count == 6)
            let extra = randomBytes(700)
            let r = try await Self.append(client, bucket: "apnd", key: "copy", at: all.count, extra)
            #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all + extra)))
            #expect(Self.dataFileSizes(dir, bucket: "apnd").count == 7)
            #expect(try await client.send("GET", bucket: "apnd", key: "copy").body == all + extra)
            // Deleting the source frees its five segments; the copy is untouched.
            #expect(try await client.send("DELETE", bucket: "apnd", key: "src").status == 204)
            #expect(Self.dataFileSizes(dir, bucket: "apnd").count == 2)
            #expect(try await client.send("GET", bucket: "apnd", key: "copy").body == all + extra)
            // Overwriting by PUT frees both of the copy's files and leaves one, and it is no longer appendable.
            #expect(try await client.send("PUT", bucket: "apnd", key: "copy", body: [9, 9]).status == 200)
            #expect(Self.dataFileSizes(dir, bucket: "apnd") .values.sorted() == [2])
            let notAppendable = try await client.send(
                "POST", bucket: "apnd", key: "copy", query: ["append": "", "position": "2"], body: [1])
            #expect(notAppendable.status == 409 && notAppendable.errorCode == "ObjectNotAppendable")
            #expect(try await client.send("DELETE", bucket: "apnd", key: "copy").status == 204)
            #expect(Self.dataFileSizes(dir, bucket: "apnd").isEmpty)
        }
    }

    @Test func positionErrorsAreUnchanged() async throws {
        try await withLocalOSSServer(.init(buckets: ["apnd"])) { server in
            let client = TestClient(server)
            try await Self.append(client, bucket: "apnd", key: "p", at: 0, [1, 2, 3])
            for position in ["0", "2", "4", "-1", "x"] {
                let r = try await client.send(
                    "POST", bucket: "apnd", key: "p", query: ["append": "", "position": position], body: [4])
                if Int(position).map({ $0 >= 0 }) == true {
                    #expect(r.status == 409 && r.errorCode == "PositionNotEqualToLength", "position \(position)")
                    #expect(r.header("x-oss-next-append-position") == "3")
                } else {
                    #expect(r.status == 400 && r.errorCode == "InvalidArgument", "position \(position)")
                }
            }
            try await Self.append(client, bucket: "apnd", key: "p", at: 3, [4])
            #expect(try await client.send("GET", bucket: "apnd", key: "p").body == [1, 2, 3, 4])
        }
    }

    @Test func restartSweepsAnUncommittedSegmentAndKeepsTheObject() async throws {
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        var configuration = LocalOSSServerConfiguration(dataDirectory: dir, buckets: ["apnd"])
        configuration.appendCompactionBytes = 10
        let all = try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            var all: [UInt8] = []
            for size in [300, 200, 100] {
                let data = randomBytes(size)
                try await Self.append(client, bucket: "apnd", key: "k", at: all.count, data)
                all += data
            }
            return all
        }
        // A crash after an append's segment was moved into place but before its record was written leaves a data
        // file no record names (named like the object's own segments).
        let before = Self.dataFileSizes(dir, bucket: "apnd")
        #expect(before.count == 3)
        let prefix = try #require(before.keys.first?.split(separator: ".").first)
        let orphan = dir.appendingPathComponent("buckets/apnd/objects/\(prefix).uncommitted.data")
        FileManager.default.createFile(atPath: orphan.path, contents: Data(randomBytes(50)))
        try await withLocalOSSServer(configuration) { server in
            let client = TestClient(server)
            #expect(Self.dataFileSizes(dir, bucket: "apnd") == before)
            let get = try await client.send("GET", bucket: "apnd", key: "k")
            #expect(get.body == all)
            let more = randomBytes(64)
            let r = try await Self.append(client, bucket: "apnd", key: "k", at: all.count, more)
            #expect(r.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(all + more)))
            #expect(Self.dataFileSizes(dir, bucket: "apnd").count == 4)
        }
    }
}
