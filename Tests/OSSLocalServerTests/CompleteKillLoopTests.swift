import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// SIGKILLs the real `oss-local-server` at points spread over the first 40 ms of CompleteMultipartUpload, restarts it on the same data
/// directory and checks that the key holds the old object or the new one (byte for byte) and that no data file is
/// left that no record references.
@Suite struct CompleteKillLoopTests {
    static let iterations = 12
    /// The kills sweep this window after Complete is sent (``ServerProcess/killDelayMicroseconds(iteration:of:window:)``).
    static let windowMicroseconds: UInt64 = 40_000

    @Test func killDuringCompleteLeavesOldOrNewObject() async throws {
        let binary = try #require(ServerProcess.executable(), "oss-local-server was not built next to \(CommandLine.arguments[0])")
        let dir = try makeWorkDirectory("oss-server-test")
        defer { try? FileManager.default.removeItem(at: dir) }
        let arguments = ServerProcess.arguments(dataDirectory: dir, bucket: "kill")
        var server = try await ServerProcess(binary, arguments: arguments)
        var current = randomBytes(200_000)
        #expect(try await server.client.send("PUT", bucket: "kill", key: "k", body: current).status == 200)
        var outcomes: [String: Int] = [:]
        for iteration in 0..<Self.iterations {
            let client = server.client
            let id = try await MultipartTests.initiate(client, bucket: "kill", key: "k")
            var listed: [(Int, String)] = []
            var next: [UInt8] = []
            for n in 1...16 {
                let data = randomBytes(n == 16 ? 777 : 102_400)
                let r = try await client.send(
                    "PUT", bucket: "kill", key: "k", query: ["partNumber": String(n), "uploadId": id], body: data)
                #expect(r.status == 200)
                if n % 5 != 0 {  // every fifth part is left out of the list, so it must be freed
                    listed.append((n, try #require(r.header("ETag"))))
                    next += data
                }
            }
            let delay = ServerProcess.killDelayMicroseconds(
                iteration: iteration, of: Self.iterations, window: Self.windowMicroseconds)
            let body = MultipartTests.completeBody(listed)
            server = try await server.killDuring(
                { client in _ = try? await client.send("POST", bucket: "kill", key: "k", query: ["uploadId": id], body: body) },
                afterMicroseconds: delay, restart: binary, arguments: arguments)
            let get = try await server.client.send("GET", bucket: "kill", key: "k")
            #expect(get.status == 200, "iteration \(iteration)")
            #expect(get.header("x-oss-hash-crc64ecma") == String(CRC64.checksum(get.body)), "iteration \(iteration)")
            if get.body == next {
                outcomes["new", default: 0] += 1
                current = next
            } else {
                #expect(get.body == current, "iteration \(iteration): neither the old nor the new object")
                outcomes["old", default: 0] += 1
                _ = try await server.client.send("DELETE", bucket: "kill", key: "k", query: ["uploadId": id])
            }
            try Self.expectNoOrphans(dir, bucket: "kill", iteration: iteration)
        }
        await server.stop(signal: SIGTERM)
        // Both outcomes are legal; the counts only describe where the kills landed.
        print("kill loop outcomes: \(outcomes)")
    }

    /// Every data file in the bucket is referenced by an object record or a part record.
    static func expectNoOrphans(_ dir: URL, bucket: String, iteration: Int) throws {
        let fm = FileManager.default
        let objects = dir.appendingPathComponent("buckets/\(bucket)/objects")
        var referenced = Set<String>()
        // Records: objects/ (an object, or a versioned key's null version) and versions/ (the other versions).
        for records in [objects, dir.appendingPathComponent("buckets/\(bucket)/versions")] {
            for file in (try? fm.contentsOfDirectory(atPath: records.path)) ?? [] where file.hasSuffix(".json") {
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: records.appendingPathComponent(file)))
                let record = try #require(json as? [String: Any])
                if let segments = record["segments"] as? [[String: Any]] {
                    referenced.formUnion(segments.compactMap { $0["file"] as? String })
                } else if let file = record["dataFile"] as? String, !file.isEmpty {
                    referenced.insert(file)
                }
            }
        }
        let files = Set(try fm.contentsOfDirectory(atPath: objects.path).filter { $0.hasSuffix(".data") })
        #expect(files == referenced, "iteration \(iteration): objects directory")
        let uploads = dir.appendingPathComponent("buckets/\(bucket)/uploads")
        for id in try fm.contentsOfDirectory(atPath: uploads.path) {
            let udir = uploads.appendingPathComponent(id)
            let entries = try fm.contentsOfDirectory(atPath: udir.path)
            var parts = Set<String>()
            for file in entries where file.hasPrefix("part-") && file.hasSuffix(".json") {
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: udir.appendingPathComponent(file)))
                if let file = (json as? [String: Any])?["dataFile"] as? String { parts.insert(file) }
            }
            // A committed part's data file is its own record: part-N.size.md5.crc.modified.unique.data.
            for file in entries where file.hasPrefix("part-") && file.hasSuffix(".data")
                && file.split(separator: ".", omittingEmptySubsequences: false).count == 7
            {
                parts.insert(file)
            }
            #expect(Set(entries.filter { $0.hasSuffix(".data") }) == parts, "iteration \(iteration): upload \(id)")
        }
        let temp = dir.appendingPathComponent("tmp")
        #expect(((try? fm.contentsOfDirectory(atPath: temp.path)) ?? []).isEmpty, "iteration \(iteration): tmp")
    }
}
