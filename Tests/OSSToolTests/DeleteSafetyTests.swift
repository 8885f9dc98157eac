import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `rm -r`, `sync --delete` and `rb`: `--dry-run` deletes nothing; more than one object needs a yes at a terminal
/// (a pseudo-terminal here, through python3's `pty`) or `--force`; without either the command refuses, exit 8.
@Suite("oss deletes: dry run, confirmation, --force, rb")
struct DeleteSafetyTests {
    func count(_ bucket: String, server: LocalOSSServer) async throws -> Int {
        let client = try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
        defer { Task { try? await client.shutdown() } }
        return try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: bucket)).contents.count
    }

    /// Runs `oss arguments` with a pseudo-terminal as its standard input, output and error, answering `answer` to
    /// the first `[y/N]` question; returns everything the terminal showed and the exit status.
    func runAtTerminal(_ tool: ToolRunner, _ arguments: [String], answer: String) async throws -> (status: Int32, screen: String) {
        let script = """
            import os, pty, sys
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[2], sys.argv[2:])
            out, sent = b"", False
            while True:
                try:
                    data = os.read(fd, 4096)
                except OSError:
                    break
                if not data:
                    break
                out += data
                if not sent and b"[y/N]" in out:
                    os.write(fd, sys.argv[1].encode() + b"\\n")
                    sent = True
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(out.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, answer, ToolRunner.binary.path] + arguments
        process.environment = tool.environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let screen = await readToEnd(out)
        await waitForExit(process)
        return (process.terminationStatus, String(decoding: screen, as: UTF8.self))
    }

    @Test("rm -r: --dry-run lists and keeps; no terminal and no --force refuses (exit 8); a terminal asks; --force deletes")
    func removeRecursive() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["del"])) { server in
            try await putObjects(["t/1", "t/2", "t/3", "keep"], bucket: "del", server: server)
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["rm", "-r", "oss://del/t", "--dry-run"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "would delete oss://del/t/1\nwould delete oss://del/t/2\nwould delete oss://del/t/3\n", "\(r.stdout)")
            #expect(try await count("del", server: server) == 4)

            r = try await tool.run(["rm", "-r", "oss://del/t"])
            #expect(r.status == 8, "\(r.stderr)")
            #expect(r.stderr.contains("refusing to delete 3 objects under oss://del/t/ (t/1, t/2, t/3)"), "\(r.stderr)")
            #expect(r.stderr.contains("pass --force"), "\(r.stderr)")
            #expect(r.stdout.isEmpty)
            #expect(try await count("del", server: server) == 4)

            var terminal = try await runAtTerminal(tool, ["rm", "-r", "oss://del/t"], answer: "n")
            #expect(terminal.status == 8, "\(terminal.screen)")
            #expect(terminal.screen.contains("delete 3 objects under oss://del/t/: t/1, t/2, t/3? [y/N]"), "\(terminal.screen)")
            #expect(terminal.screen.contains("nothing was deleted"), "\(terminal.screen)")
            #expect(try await count("del", server: server) == 4)

            terminal = try await runAtTerminal(tool, ["rm", "-r", "oss://del/t"], answer: "y")
            #expect(terminal.status == 0, "\(terminal.screen)")
            #expect(terminal.screen.contains("deleted 3 objects under oss://del/t/"), "\(terminal.screen)")
            #expect(try await count("del", server: server) == 1)

            try await putObjects(["t/4", "t/5"], bucket: "del", server: server)
            r = try await tool.run(["rm", "-r", "--force", "oss://del/t/"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout == "deleted oss://del/t/4\ndeleted oss://del/t/5\n", "\(r.stdout)")
            #expect(try await count("del", server: server) == 1)
        }
    }

    @Test("sync --delete of more than one object: refused without a terminal or --force, nothing sent; --force deletes")
    func syncDelete() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["syncdel"])) { server in
            try await putObjects(["p/old1", "p/old2"], bucket: "syncdel", server: server)
            let source = work.appendingPathComponent("src")
            try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
            try Data("new".utf8).write(to: source.appendingPathComponent("new"))
            let tool = ToolRunner(server: server, home: work)
            let ck = ["--checkpoint-dir", work.appendingPathComponent("ck").path]
            var r = try await tool.run(["sync", source.path, "oss://syncdel/p", "--delete"] + ck)
            #expect(r.status == 8, "\(r.stderr)")
            #expect(r.stderr.contains("refusing to delete 2 objects"), "\(r.stderr)")
            #expect(r.stderr.contains("oss://syncdel/p/old1"), "\(r.stderr)")
            #expect(try await count("syncdel", server: server) == 2, "nothing uploaded, nothing deleted")

            let terminal = try await runAtTerminal(tool, ["sync", source.path, "oss://syncdel/p", "--delete"] + ck, answer: "")
            #expect(terminal.status == 8, "\(terminal.screen)")
            #expect(terminal.screen.contains("[y/N]"), "\(terminal.screen)")
            #expect(try await count("syncdel", server: server) == 2)

            r = try await tool.run(["sync", source.path, "oss://syncdel/p", "--delete", "--force"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("2 deleted"), "\(r.stderr)")
            #expect(try await count("syncdel", server: server) == 1)
        }
    }

    @Test("rb: an empty bucket goes; a full one with an upload in progress is listed by --dry-run, refused, then emptied with --force")
    func removeBucket() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["empty", "full"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["rb", "oss://empty"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("removed oss://empty"), "\(r.stdout)")

            try await putObjects(["a", "b/c"], bucket: "full", server: server)
            let client = try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
            let upload = try await client.initiateMultipartUpload(OSSInitiateMultipartUploadRequest(bucketName: "full", objectKey: "big"))
            try await client.shutdown()

            r = try await tool.run(["rb", "oss://full", "--dry-run"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("would abort upload \(upload.uploadId) of oss://full/big"), "\(r.stdout)")
            #expect(r.stdout.contains("would delete oss://full/b/c"), "\(r.stdout)")
            #expect(r.stdout.contains("would remove oss://full"), "\(r.stdout)")
            r = try await tool.run(["rb", "oss://full"])
            #expect(r.status == 8, "\(r.stderr)")
            #expect(r.stderr.contains("refusing to delete 3 objects and uploads in progress of oss://full"), "\(r.stderr)")
            #expect(try await count("full", server: server) == 2)

            r = try await tool.run(["rb", "oss://full", "--force"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("aborted upload \(upload.uploadId)"), "\(r.stdout)")
            #expect(r.stdout.contains("removed oss://full"), "\(r.stdout)")
            r = try await tool.run(["ls"])
            #expect(!r.stdout.contains("oss://full") && !r.stdout.contains("oss://empty"), "\(r.stdout)")
        }
    }
}
