import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import oss

/// One meaning of a remote path for every command (``PathRule``): `oss://b/site` and `oss://b/site/` are the folder
/// `site/` for `rm -r`, `ls`, `cp -r` and `sync`; a destination ending in `/` means into that folder.
@Suite("oss paths: one meaning for every command")
struct PathRuleTests {
    static let siblings = ["site/a", "site-backup/b.txt", "siteX.txt"]

    func keys(_ tool: ToolRunner, _ bucket: String) async throws -> [String] {
        let r = try await tool.run(["ls", "-r", "oss://\(bucket)"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").compactMap { line in
            line.range(of: "oss://\(bucket)/").map { String(line[$0.upperBound...]) }
        }.sorted()
    }

    @Test("rm -r oss://b/site deletes site/a only, never site-backup/b.txt or siteX.txt (with or without the slash)")
    func removeNamesAFolderNotAPrefix() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["rmb"])) { server in
            let tool = ToolRunner(server: server, home: work)
            for spelling in ["oss://rmb/site", "oss://rmb/site/"] {
                try await putObjects(Self.siblings, bucket: "rmb", server: server)
                let r = try await tool.run(["rm", "-r", spelling])
                #expect(r.status == 0, "\(spelling): \(r.stderr)")
                #expect(r.stdout == "deleted oss://rmb/site/a\n", "\(spelling): \(r.stdout)")
                #expect(r.stderr.contains("deleted 1 object under oss://rmb/site/"), "\(r.stderr)")
                #expect(try await keys(tool, "rmb") == ["site-backup/b.txt", "siteX.txt"], "\(spelling)")
            }
        }
    }

    @Test("ls, cp -r and sync read oss://b/site as the folder site/ too; ls of an object's name shows the object")
    func everyCommandReadsTheFolder() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lsb"])) { server in
            try await putObjects(Self.siblings + ["site/sub/c"], bucket: "lsb", server: server)
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["ls", "-r", "oss://lsb/site"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("oss://lsb/site/a") && r.stdout.contains("oss://lsb/site/sub/c"), "\(r.stdout)")
            #expect(!r.stdout.contains("site-backup") && !r.stdout.contains("siteX"), "\(r.stdout)")
            r = try await tool.run(["ls", "oss://lsb/site"])
            #expect(r.stdout.contains("oss://lsb/site/a") && r.stdout.contains("DIR  oss://lsb/site/sub/"), "\(r.stdout)")
            #expect(!r.stdout.contains("site-backup") && !r.stdout.contains("siteX"), "\(r.stdout)")
            r = try await tool.run(["ls", "oss://lsb/siteX.txt"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("oss://lsb/siteX.txt"), "\(r.stdout)")

            let ck = ["--checkpoint-dir", work.appendingPathComponent("ck").path]
            let down = work.appendingPathComponent("down")
            r = try await tool.run(["cp", "-r", "oss://lsb/site", down.path] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Data(contentsOf: down.appendingPathComponent("a")) == Data("site/a".utf8))
            #expect(try Data(contentsOf: down.appendingPathComponent("sub/c")) == Data("site/sub/c".utf8))
            let tree = try FileManager.default.subpathsOfDirectory(atPath: down.path).sorted()
            #expect(tree == ["a", "sub", "sub/c"], "\(tree)")

            // sync up to oss://lsb/copy (no slash) writes under copy/; sync --delete to oss://lsb/site leaves the
            // siblings alone.
            r = try await tool.run(["sync", down.path, "oss://lsb/copy"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            try FileManager.default.removeItem(at: down.appendingPathComponent("sub"))
            r = try await tool.run(["sync", down.path, "oss://lsb/site", "--delete"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                try await keys(tool, "lsb") == ["copy/a", "copy/sub/c", "site-backup/b.txt", "site/a", "siteX.txt"])
        }
    }

    @Test("a trailing slash on a destination means into that folder: up, down (creating it) and on the server")
    func trailingSlashMeansIntoTheFolder() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["into"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let ck = ["--checkpoint-dir", work.appendingPathComponent("ck").path]
            let file = work.appendingPathComponent("p.txt")
            try Data("payload".utf8).write(to: file)
            var r = try await tool.run(["cp", file.path, "oss://into/dir/"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", file.path, "oss://into"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", file.path, "oss://into/exact"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", "oss://into/dir/p.txt", "oss://into/copies/"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try await keys(tool, "into") == ["copies/p.txt", "dir/p.txt", "exact", "p.txt"])

            let newdir = work.appendingPathComponent("newdir").path + "/"
            r = try await tool.run(["cp", "oss://into/dir/p.txt", newdir] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: newdir + "p.txt")) == Data("payload".utf8))
            // An existing directory without the slash: into it too.
            r = try await tool.run(["cp", "oss://into/exact", work.appendingPathComponent("newdir").path] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(FileManager.default.fileExists(atPath: newdir + "exact"))
            // A file name without the slash: that file.
            r = try await tool.run(["cp", "oss://into/exact", work.appendingPathComponent("renamed.txt").path] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try Data(contentsOf: work.appendingPathComponent("renamed.txt")) == Data("payload".utf8))
        }
    }

    @Test func theRuleInOnePlace() {
        #expect(PathRule.folder(OSSURI("oss://b")!) == "")
        #expect(PathRule.folder(OSSURI("oss://b/")!) == "")
        #expect(PathRule.folder(OSSURI("oss://b/site")!) == "site/")
        #expect(PathRule.folder(OSSURI("oss://b/site/")!) == "site/")
        #expect(PathRule.remoteTarget(OSSURI("oss://b/dir/")!, sourceName: "p.txt").key == "dir/p.txt")
        #expect(PathRule.remoteTarget(OSSURI("oss://b")!, sourceName: "p.txt").key == "p.txt")
        #expect(PathRule.remoteTarget(OSSURI("oss://b/dir")!, sourceName: "p.txt").key == "dir")
        #expect(PathRule.name(of: "a/b/c.txt") == "c.txt")
    }
}
