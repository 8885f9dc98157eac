import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss cp oss://a/k oss://b/k2` copies on the server; `oss rm` deletes several objects or a prefix.
@Suite("oss cp between buckets and oss rm of many objects")
struct ServerSideCopyRemoveTests {
    @Test func copiesOnTheServerAndRemovesManyObjects() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["src", "dst"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.bin")
            let crc = try writeFile(file, count: 350_000, seed: 5)
            var r = try await tool.run(["cp", file.path, "oss://src/dir/f.bin", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            let before = await server.stats()
            r = try await tool.run(["cp", "oss://src/dir/f.bin", "oss://dst/copy.bin"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("on the server"), "\(r.stdout)")
            #expect(r.stdout.contains("crc64 \(crc)"), "\(r.stdout)")
            r = try await tool.run(["cp", "oss://src/dir/f.bin", "oss://dst/parts/", "--part-size", "102400"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("(4 parts)"), "\(r.stdout)")
            let after = await server.stats()
            #expect(after[.copyObject].requests - before[.copyObject].requests == 1)
            #expect(after[.uploadPartCopy].requests - before[.uploadPartCopy].requests == 4)
            #expect(after[.getObject].requests == before[.getObject].requests, "no bytes pass through the tool")
            r = try await tool.run(["stat", "oss://dst/parts/f.bin"])
            #expect(r.stdout.contains("crc64:          \(crc)"), "\(r.stdout)")

            r = try await tool.run(["rm", "oss://dst/copy.bin", "oss://dst/parts/f.bin"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(after[.deleteMultipleObjects].requests + 1 == (await server.stats())[.deleteMultipleObjects].requests)
            for n in 0..<5 {
                r = try await tool.run(["cp", "oss://src/dir/f.bin", "oss://src/tree/\(n)"])
                #expect(r.status == 0, "\(r.stderr)")
            }
            r = try await tool.run(["rm", "--recursive", "--force", "oss://src/tree/"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("deleted 5 objects"), "\(r.stderr)")
            #expect(r.stdout.split(separator: "\n").count == 5, "one line per deleted object: \(r.stdout)")
            r = try await tool.run(["ls", "-r", "oss://src/"])
            #expect(r.stdout.contains("oss://src/dir/f.bin"), "\(r.stdout)")
            #expect(!r.stdout.contains("tree/"), "\(r.stdout)")
            r = try await tool.run(["ls", "-r", "oss://dst/"])
            #expect(!r.stdout.contains("oss://dst/"), "\(r.stdout)")
        }
    }
}
