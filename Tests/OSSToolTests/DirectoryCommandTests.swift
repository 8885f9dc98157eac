import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss cp -r` and `oss sync` against the local server: the tree round-trips byte for byte, a second sync sends no
/// object bytes, a dry run changes nothing, hostile keys are refused with exit status 7, and `--json` is one object.
@Suite("oss cp -r and oss sync")
struct DirectoryCommandTests {
    static let files: [(String, Int)] = [
        ("a/one.bin", 1000), ("a/b/two.bin", 250_000), ("c/empty", 0), ("c/odd name+%#?.txt", 17), ("ü/ñ.txt", 33),
    ]

    func makeTree(_ root: URL) throws {
        for (index, (path, size)) in Self.files.enumerated() {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = try writeFile(url, count: size, seed: UInt64(index) + 1)
        }
    }

    func tree(_ root: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true else { continue }
            let relative = String(url.standardizedFileURL.path.dropFirst(root.standardizedFileURL.path.count + 1))
            out[relative] = try Data(contentsOf: url)
        }
        return out
    }

    @Test("cp -r up and down is byte-identical; a second sync sends nothing; --delete after a dry run")
    func roundTripAndSync() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("tree")
        try makeTree(source)
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["dirs"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let ck = ["--checkpoint-dir", work.appendingPathComponent("ck").path, "--stall-timeout", "120"]
            var r = try await tool.run(
                ["cp", "-r", source.path, "oss://dirs/p", "--multipart-threshold", "200000", "--part-size", "102400",
                 "--jobs", "3"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("5 transferred"), "\(r.stderr)")
            #expect(await server.stats()[.uploadPart].requests == 3, "the large file went as multipart")

            let down = work.appendingPathComponent("down")
            r = try await tool.run(["cp", "-r", "oss://dirs/p/", down.path, "--json"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            let summary = try #require(
                try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
            #expect(summary["ok"] as? Bool == true)
            #expect((summary["counts"] as? [String: Any])?["downloaded"] as? Int == 5)
            #expect(try tree(down) == tree(source))

            await server.resetStats()
            r = try await tool.run(["sync", source.path, "oss://dirs/p/"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("0 transferred"), "\(r.stderr)")
            let stats = await server.stats()
            #expect(stats[.putObject].requestBodyBytes + stats[.uploadPart].requestBodyBytes == 0)

            try FileManager.default.removeItem(at: source.appendingPathComponent("a/one.bin"))
            r = try await tool.run(["sync", source.path, "oss://dirs/p/", "--delete", "--dry-run"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("would delete p/a/one.bin"), "\(r.stdout)")
            #expect(await server.stats()[.deleteObject].requests == 0)
            r = try await tool.run(["sync", source.path, "oss://dirs/p/", "--delete"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("1 deleted"), "\(r.stderr)")
            r = try await tool.run(["sync", "oss://dirs/p/", down.path, "--delete"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try tree(down) == tree(source))
        }
    }

    @Test("a prefix holding keys that escape the directory: those are refused and listed, the rest lands, exit 7")
    func hostileKeys() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["hostile"])) { server in
            let client = try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
            for key in ["h/ok.txt", "h/../escape.txt", "h/a/../../up.txt", "h//abs.txt"] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "hostile", objectKey: key, data: Data(key.utf8)))
            }
            try await client.shutdown()
            let tool = ToolRunner(server: server, home: work)
            let target = work.appendingPathComponent("target")
            let r = try await tool.run(
                ["cp", "-r", "oss://hostile/h/", target.path, "--checkpoint-dir", work.appendingPathComponent("ck").path])
            #expect(r.status == 7, "\(r.stderr)")
            #expect(r.stderr.contains("refused h/../escape.txt"), "\(r.stderr)")
            #expect(r.stderr.contains("refused h/a/../../up.txt"), "\(r.stderr)")
            #expect(try Data(contentsOf: target.appendingPathComponent("ok.txt")) == Data("h/ok.txt".utf8))
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("escape.txt").path))
            #expect(!FileManager.default.fileExists(atPath: work.appendingPathComponent("up.txt").path))
        }
    }
}
