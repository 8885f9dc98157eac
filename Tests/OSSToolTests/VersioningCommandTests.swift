import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The CLI on a versioned bucket: `bucket-versioning`, `ls --all-versions`, `--version-id` on stat, cp and rm,
/// `rm -r --all-versions` and `rb --force`.
@Suite("oss on versioned buckets")
struct VersioningCommandTests {
    /// `ls --all-versions --json` of `location`, as (versionId, isDeleteMarker, isLatest, key) per line.
    static func versions(_ tool: ToolRunner, _ location: String) async throws -> [(id: String, marker: Bool, latest: Bool, key: String)] {
        let r = try await tool.run(["ls", "-r", "--all-versions", "--json", location])
        #expect(r.status == 0, "\(r.stderr)")
        return try r.stdout.split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return (
                try #require(object["versionId"] as? String), try #require(object["isDeleteMarker"] as? Bool),
                try #require(object["isLatest"] as? Bool), try #require(object["key"] as? String)
            )
        }
    }

    @Test func aKeysHistoryThroughTheTool() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["vbk"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["bucket-versioning", "oss://vbk"])
            #expect(r.status == 0 && r.stdout == "Off\n", "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["bucket-versioning", "oss://vbk", "enable"])
            #expect(r.status == 0 && r.stdout.contains("is Enabled"), "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["bucket-versioning", "oss://vbk"])
            #expect(r.stdout == "Enabled\n", "\(r.stdout)")

            let file = work.appendingPathComponent("doc.txt")
            for text in ["one", "two!", "three"] {
                try Data(text.utf8).write(to: file)
                // Exactly one version per run: no stall detector (5 s by default) that, on a loaded machine, gives
                // up on a stored PutObject's slow answer and sends it again (a second version).
                r = try await tool.run(
                    ["cp", file.path, "oss://vbk/doc.txt", "--checkpoint-dir", work.path, "--stall-timeout", "0"])
                #expect(r.status == 0, "\(r.stderr)")
            }
            r = try await tool.run(["rm", "oss://vbk/doc.txt", "--stall-timeout", "0"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("delete marker") && r.stdout.contains("its versions remain"), "\(r.stdout)")

            let history = try await Self.versions(tool, "oss://vbk/")
            #expect(history.map(\.marker) == [true, false, false, false])
            #expect(history.map(\.latest) == [true, false, false, false])
            let (v3, v2, v1) = (history[1].id, history[2].id, history[3].id)
            r = try await tool.run(["ls", "--all-versions", "oss://vbk/"])
            let lines = r.stdout.split(separator: "\n")
            #expect(lines.count == 4 && r.stderr.contains("4 version(s)"), "\(r.stdout)\(r.stderr)")
            #expect(lines[0].contains("DELETE-MARKER") && lines[0].contains("latest") && lines[0].hasSuffix("oss://vbk/doc.txt"))
            #expect(lines[3].contains(" 3  \(v1)  "), "size and id of the oldest: \(lines[3])")
            r = try await tool.run(["ls", "oss://vbk/"])
            #expect(r.stdout.isEmpty, "a plain listing hides a key under a delete marker: \(r.stdout)")
            r = try await tool.run(["ls", "--all-versions", "oss://vbk/doc.txt"])
            #expect(r.stdout.split(separator: "\n").count == 4, "one key's history, named exactly: \(r.stdout)")

            // stat and cp of old versions.
            r = try await tool.run(["stat", "oss://vbk/doc.txt"])
            #expect(r.status == 1, "the latest version is a delete marker: \(r.stderr)")
            #expect(r.stderr.contains("latest version is the delete marker \(history[0].id)"), "\(r.stderr)")
            r = try await tool.run(["cp", "oss://vbk/doc.txt", "-", "--version-id", history[0].id])
            #expect(r.status == 1 && r.stderr.contains("that version is the delete marker"), "\(r.stderr)")
            r = try await tool.run(["stat", "oss://vbk/doc.txt", "--version-id", v2])
            #expect(r.status == 0 && r.stdout.contains("size:           4 ") && r.stdout.contains("version-id:     \(v2)"), "\(r.stdout)")
            let copy = work.appendingPathComponent("copy.txt")
            r = try await tool.run(["cp", "oss://vbk/doc.txt", copy.path, "--version-id", v2])
            #expect(r.status == 0 && r.stdout.contains("version \(v2)"), "\(r.stdout)\(r.stderr)")
            #expect(try Data(contentsOf: copy) == Data("two!".utf8))
            r = try await tool.run(["cp", "oss://vbk/doc.txt", "-", "--version-id", v1])
            #expect(r.status == 0 && r.stdout == "one", "\(r.stdout)\(r.stderr)")

            // Restore v1 by a server-side copy over the key, then remove v3 for good.
            r = try await tool.run(["cp", "oss://vbk/doc.txt", "oss://vbk/doc.txt", "--version-id", v1])
            #expect(r.status == 0 && r.stdout.contains("version \(v1)") && r.stdout.contains("new version"), "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["cp", "oss://vbk/doc.txt", "-"])
            #expect(r.stdout == "one")
            r = try await tool.run(["rm", "oss://vbk/doc.txt", "--version-id", v3])
            #expect(r.status == 0 && r.stdout == "deleted oss://vbk/doc.txt version \(v3)\n", "\(r.stdout)\(r.stderr)")
            let after = try await Self.versions(tool, "oss://vbk/")
            #expect(after.count == 4 && !after.map(\.id).contains(v3) && after[0].latest && !after[0].marker)

            r = try await tool.run(["rm", "oss://vbk/doc.txt", "oss://vbk/other", "--version-id", v2])
            #expect(r.status != 0 && r.stderr.contains("--version-id takes one"), "\(r.stderr)")
            r = try await tool.run(["cp", file.path, "oss://vbk/x", "--version-id", v2])
            #expect(r.status != 0, "an upload names no source version")
        }
    }

    @Test func removingAFolderAndTheBucketWithEveryVersion() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["vbk"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["bucket-versioning", "oss://vbk", "enable"])
            #expect(r.status == 0, "\(r.stderr)")
            try await putObjects(["dir/a", "dir/b", "keep/c"], bucket: "vbk", server: server)
            try await putObjects(["dir/a", "dir/b"], bucket: "vbk", server: server, size: 10)
            r = try await tool.run(["ls", "--all-versions", "oss://vbk"])
            #expect(r.stdout.contains("DIR  oss://vbk/dir/") && r.stdout.contains("DIR  oss://vbk/keep/"), "\(r.stdout)")

            // Without --all-versions: delete markers only, and the tool says so.
            r = try await tool.run(["rm", "-r", "--force", "oss://vbk/dir/"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("versioning of oss://vbk is Enabled") && r.stderr.contains("--all-versions"), "\(r.stderr)")
            var all = try await Self.versions(tool, "oss://vbk/dir/")
            #expect(all.count == 6 && all.filter(\.marker).count == 2)

            r = try await tool.run(["rm", "-r", "--all-versions", "--dry-run", "oss://vbk/dir"])
            #expect(r.status == 0 && r.stdout.split(separator: "\n").count == 6, "\(r.stdout)")
            #expect(r.stdout.contains("would delete oss://vbk/dir/a version ") && r.stdout.contains("(delete marker)"))
            #expect(try await Self.versions(tool, "oss://vbk/dir/").count == 6, "a dry run deletes nothing")
            r = try await tool.run(["rm", "-r", "--all-versions", "oss://vbk/dir"])
            #expect(r.status == 8, "more than one without a terminal or --force is refused: \(r.stderr)")
            r = try await tool.run(["rm", "-r", "--all-versions", "--force", "oss://vbk/dir"])
            #expect(r.status == 0 && r.stderr.contains("deleted 6 versions"), "\(r.stderr)")
            all = try await Self.versions(tool, "oss://vbk/")
            #expect(all.map(\.key) == ["keep/c"], "only the other folder is left")

            // rb --force removes every version (and marker) before the bucket.
            r = try await tool.run(["rm", "oss://vbk/keep/c"])
            #expect(try await Self.versions(tool, "oss://vbk/").count == 2)
            r = try await tool.run(["rb", "--dry-run", "oss://vbk"])
            #expect(r.stdout.contains("would delete oss://vbk/keep/c version ") && r.stdout.contains("(delete marker)"), "\(r.stdout)")
            r = try await tool.run(["rb", "--force", "oss://vbk"])
            #expect(r.status == 0 && r.stdout.contains("removed oss://vbk"), "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["ls"])
            #expect(!r.stdout.contains("oss://vbk"), "\(r.stdout)")
        }
    }

    @Test func helpNamesTheVersioningOptions() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tool = ToolRunner(home: work)
        let expected: [(String, [String])] = [
            ("bucket-versioning", ["enable", "suspend", "delete marker"]), ("ls", ["--all-versions"]),
            ("rm", ["--version-id", "--all-versions", "delete marker"]), ("cp", ["--version-id"]), ("stat", ["--version-id"]),
            ("rb", ["every version"]),
        ]
        for (command, words) in expected {
            let r = try await tool.run([command, "--help"])
            let help = r.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            for word in words { #expect(help.contains(word), "oss \(command) --help lacks \(word)") }
        }
        let top = try await tool.run(["--help"])
        #expect(top.stdout.contains("bucket-versioning"))
    }
}
