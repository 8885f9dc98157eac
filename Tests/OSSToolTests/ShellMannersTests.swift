import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a shell user meets first: a closed pipe ends a command quietly; a scheme-less endpoint, a directory without
/// -r and a missing bucket in a batch are refused at once with what to do; a skipped symbolic link is a warning.
@Suite("oss manners: pipes, messages, links")
struct ShellMannersTests {
    /// Runs `oss arguments` with a standard output nobody reads (the read end closed before it starts).
    func runIntoClosedPipe(_ tool: ToolRunner, _ arguments: [String]) async throws -> (Process, String) {
        let process = Process()
        process.executableURL = ToolRunner.binary
        process.arguments = arguments
        process.environment = tool.environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try out.fileHandleForReading.close()
        try process.run()
        let stderr = await readToEnd(err)
        await waitForExit(process)
        return (process, String(decoding: stderr, as: UTF8.self))
    }

    @Test("a reader that went away ends ls and cp to - quietly, by SIGPIPE (no trap, no backtrace)")
    func closedPipe() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["pipe"])) { server in
            try await putObjects(["a", "b", "c"], bucket: "pipe", server: server)
            try await putObjects(["big"], bucket: "pipe", server: server, size: 300_000)
            let tool = ToolRunner(server: server, home: work)
            for arguments in [["ls", "-r", "oss://pipe"], ["cp", "oss://pipe/big", "-"], ["stat", "oss://pipe/a"]] {
                let (process, stderr) = try await runIntoClosedPipe(tool, arguments)
                #expect(process.terminationReason == .uncaughtSignal, "\(arguments): \(stderr)")
                #expect(process.terminationStatus == SIGPIPE, "\(arguments): \(process.terminationStatus) \(stderr)")
                #expect(stderr.isEmpty, "\(arguments): \(stderr)")
            }
        }
    }

    @Test("an endpoint without its scheme is refused at once with the http:// it probably means")
    func schemelessEndpoint() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["endp"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let port = server.endpoint.port ?? 0
            var r = try await tool.run(["ls", "oss://endp", "--endpoint", "127.0.0.1:\(port)"])
            // Refused before any connection (no timed assertion: a loaded machine stretches a process's start):
            // a client error, and the server saw no request.
            #expect(r.status == 2, "\(r.stderr)")
            #expect(await server.stats().operations.isEmpty, "no request reached the server")
            #expect(r.stderr.contains("did you mean http://127.0.0.1:\(port)?"), "\(r.stderr)")
            r = try await tool.run(["ls", "oss://endp", "--endpoint", "oss://endp"])
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.contains("oss:// names buckets"), "\(r.stderr)")
        }
    }

    @Test("cp of a directory without -r says to use -r; a missing file says so with its reason")
    func directoryWithoutRecursive() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["dirb"])) { server in
            let tool = ToolRunner(server: server, home: work)
            var r = try await tool.run(["cp", work.path, "oss://dirb/x", "--checkpoint-dir", work.path])
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.contains("is a directory: copy it with cp -r"), "\(r.stderr)")
            r = try await tool.run(["cp", work.appendingPathComponent("missing").path, "oss://dirb/x", "--checkpoint-dir", work.path])
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.contains("errno \(ENOENT) (\(String(cString: strerror(ENOENT))))"), "\(r.stderr)")
            // Through a regular file: the reason is open(2)'s, not "no such file".
            let plain = work.appendingPathComponent("plain.txt")
            try Data("x".utf8).write(to: plain)
            r = try await tool.run(["cp", plain.appendingPathComponent("x").path, "oss://dirb/x", "--checkpoint-dir", work.path])
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.contains("errno \(ENOTDIR) (\(String(cString: strerror(ENOTDIR))))"), "\(r.stderr)")
        }
    }

    @Test("a batch into a missing bucket stops at the first file, names the bucket and the fix, once (exit 1)")
    func missingBucketStopsTheBatch() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        for n in 0..<20 { try Data("\(n)".utf8).write(to: source.appendingPathComponent("f\(n)")) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["exists"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let r = try await tool.run(
                ["cp", "-r", source.path, "oss://nosuch/p", "--jobs", "1", "--checkpoint-dir", work.appendingPathComponent("ck").path])
            #expect(r.status == 1, "\(r.stderr)")
            #expect(r.stderr.components(separatedBy: "NoSuchBucket").count == 2, "named once: \(r.stderr)")
            #expect(r.stderr.contains("the bucket nosuch does not exist"), "\(r.stderr)")
            #expect(!r.stderr.contains("again"), "\(r.stderr)")
            #expect(await server.stats()[.putObject].requests <= 1, "stopped at the first file")
        }
    }

    @Test("links: followed by default (a loop and a link to nothing are warnings); --no-follow-symlinks skips with a warning; exit 0")
    func symbolicLinks() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("src")
        try FileManager.default.createDirectory(at: source.appendingPathComponent("d"), withIntermediateDirectories: true)
        try Data("real".utf8).write(to: source.appendingPathComponent("real.txt"))
        let links = FileManager.default
        try links.createSymbolicLink(atPath: source.appendingPathComponent("link.txt").path, withDestinationPath: "real.txt")
        try links.createSymbolicLink(atPath: source.appendingPathComponent("dangling").path, withDestinationPath: "/nonexistent/x")
        try links.createSymbolicLink(atPath: source.appendingPathComponent("d/up").path, withDestinationPath: "..")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["links"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let ck = ["--checkpoint-dir", work.appendingPathComponent("ck").path]
            var r = try await tool.run(["cp", "-r", source.path, "oss://links/f"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("oss: warning: skipped f/dangling"), "\(r.stderr)")
            #expect(r.stderr.contains("oss: warning: skipped f/d/up"), "\(r.stderr)")
            // The summary counts them as warnings, not as failures beside an exit status of 0.
            #expect(r.stderr.contains("0 failed, 0 refused, 2 skipped with a warning"), "\(r.stderr)")
            r = try await tool.run(["ls", "-r", "oss://links/f"])
            #expect(r.stdout.contains("oss://links/f/link.txt"), "followed: \(r.stdout)")

            r = try await tool.run(["sync", source.path, "oss://links/s", "--no-follow-symlinks"] + ck)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("oss: warning: skipped s/link.txt: a symbolic link (not followed)"), "\(r.stderr)")
            r = try await tool.run(["sync", source.path, "oss://links/s", "--no-follow-symlinks"] + ck)
            #expect(r.status == 0, "a second run too: \(r.stderr)")
            r = try await tool.run(["ls", "-r", "oss://links/s"])
            #expect(r.stdout.contains("oss://links/s/real.txt") && !r.stdout.contains("link.txt"), "\(r.stdout)")
        }
    }

    @Test("every flag --help shows is accepted")
    func helpAndParsingAgree() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tool = ToolRunner(home: work)
        for command in ["cp", "sync", "rm", "rb", "ls"] {
            let help = try await tool.run([command, "--help"])
            #expect(help.status == 0)
            // Every short flag anywhere in the text, titles included ("DIRECTORIES (-R)" once advertised -R).
            let shorts = Set(help.stdout.matches(of: /(?:^|[^\w-])(-[A-Za-z])\b/).map { String($0.1) })
            #expect(shorts.contains("-r") || command == "rb" || command == "sync", "\(command): \(shorts)")
            for flag in shorts where flag != "-h" {
                let r = try await tool.run([command, flag])
                #expect(!r.stderr.contains("Unknown option"), "\(command) \(flag): \(r.stderr)")
            }
        }
    }
}
