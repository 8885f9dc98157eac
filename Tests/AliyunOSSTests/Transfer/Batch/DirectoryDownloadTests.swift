import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSS

@Suite("Directory download")
struct DirectoryDownloadTests {
    static func put(_ client: OSSClient, _ key: String, _ bytes: [UInt8]) async throws {
        _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(bytes)))
    }

    @Test("keys that would escape the directory are refused and reported; the rest downloads, CRC-checked")
    func escapingKeysAreRefused() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let good: [String: [UInt8]] = [
            "ok.txt": Array("ok".utf8),
            "dir/odd name+%#?.txt": Array("odd".utf8),
            "dir/ünï/文件": Array("unicode".utf8),
            "empty": [],
            "big.bin": patternBytes(300_000, seed: 9),
        ]
        let hostile = ["p/../x", "p/a/../../x", "p//abs", "p/a//b", "p/./dot"]
        try await withServerAndClient { server, client in
            for (path, bytes) in good { try await Self.put(client, "p/" + path, bytes) }
            // Seeded over AsyncHTTPClient where there is one: URLSession on Linux normalises `..` out of the path.
            var seeding = client.configuration
            #if !canImport(Darwin)
            seeding.transport = .asyncHTTPClient
            #endif
            try await withClient(of: server, server.credentials.provider, seeding) { _, seeder in
                for key in hostile { try await Self.put(seeder, key, Array("evil".utf8)) }
            }
            try await Self.put(client, "p/marker/", [])
            try await Self.put(client, "p/", [])
            await server.resetStats()
            var options = batchOptions()
            let (report, items) = try await runBatch(
                client, records: scratch.records,
                .download(fromBucket: "bkt", prefix: "p", to: scratch.destination, options: options))
            #expect(report.state == .completed)
            let byKey = outcomes(items)
            #expect(byKey["p/../x"] == .refused(.escapesDirectory))
            #expect(byKey["p/a/../../x"] == .refused(.escapesDirectory))
            #expect(byKey["p//abs"] == .refused(.escapesDirectory))
            #expect(byKey["p/a//b"] == .refused(.invalidPathComponent))
            #expect(byKey["p/./dot"] == .refused(.invalidPathComponent))
            #expect(byKey["p/marker/"] == .createdDirectory)
            #expect(report.counts.downloaded == good.count)
            #expect(report.counts.refused == hostile.count)
            for (path, bytes) in good {
                let data = try Data(contentsOf: scratch.destination.appendingPathComponent(path))
                #expect(Array(data) == bytes, "\(path)")
            }
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(
                atPath: scratch.destination.appendingPathComponent("marker").path, isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
            // Nothing was written outside the destination: only the destination and the record directory are there.
            #expect(!FileManager.default.fileExists(atPath: scratch.root.appendingPathComponent("x").path))
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.appendingPathComponent("x").path))
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.appendingPathComponent("abs").path))
            let top = try FileManager.default.contentsOfDirectory(atPath: scratch.root.path).sorted()
            #expect(top == ["destination", "records"])
            // The refused keys were never fetched.
            let stats = await server.stats()
            #expect(stats[.getObject].responseBodyBytes == Int64(good.values.map(\.count).reduce(0, +)))
            // The files carry the objects' Last-Modified.
            let listed = try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: "bkt", prefix: "p/ok.txt"))
            let written = try #require(listed.contents.first?.lastModified)
            let attributes = try FileManager.default.attributesOfItem(atPath: scratch.destination.appendingPathComponent("ok.txt").path)
            let modified = try #require(attributes[.modificationDate] as? Date)
            #expect(abs(modified.timeIntervalSince(written)) < 1)
        }
    }

    @Test("a link inside the destination is never followed to write a key")
    func linkInDestinationIsNotFollowed() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let outside = scratch.root.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: scratch.destination, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.destination.appendingPathComponent("escape").path, withDestinationPath: outside.path)
        try await withServerAndClient { _, client in
            try await Self.put(client, "l/escape/planted.txt", Array("planted".utf8))
            try await Self.put(client, "l/fine.txt", Array("fine".utf8))
            let (report, items) = try await runBatch(
                client, records: scratch.records, .download(fromBucket: "bkt", prefix: "l/", to: scratch.destination))
            #expect(outcomes(items)["l/escape/planted.txt"] == .refused(.symbolicLinkInPath))
            #expect(outcomes(items)["l/fine.txt"] == .downloaded)
            #expect(report.counts.refused == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        }
    }
}
