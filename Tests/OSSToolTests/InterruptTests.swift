import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT) in the middle of `oss cp`: the transfer pauses (exit 130, checkpoint and upload id kept) and the
/// same command resumes it; `--no-keep-upload-on-cancel` cancels instead (upload aborted, checkpoint removed).
@Suite("oss cp interrupted with SIGINT")
struct InterruptTests {
    static let partSize = 200 * 1024
    static let size = 30 * partSize + 4321

    /// Starts `args`, waits until `ready` holds for the server's stats, sends SIGINT and returns the outcome.
    func interrupt(
        _ tool: ToolRunner, _ server: LocalOSSServer, _ args: [String],
        when ready: @escaping @Sendable (LocalOSSServerStats) -> Bool
    ) async throws -> ToolRunner.Outcome {
        let (process, out, err) = try tool.start(args)
        async let stdout = readToEnd(out)
        async let stderr = readToEnd(err)
        var waited = 0
        while !(ready(await server.stats())) && waited < 600 {
            try await Task.sleep(for: .milliseconds(50))
            waited += 1
        }
        kill(process.processIdentifier, SIGINT)
        let (o, e) = await (stdout, stderr)
        await waitForExit(process)
        return .init(
            status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }

    func uploads(_ server: LocalOSSServer, _ bucket: String) async throws -> Int {
        try await withOSSClient(
            endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider
        ) { client in
            try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: bucket)).uploads.count
        }
    }

    /// A pause is not an error: one plain line says the transfer paused, what was kept, and the command that resumes
    /// it (the same command line); no SDK error code.
    static func expectPauseReport(_ r: ToolRunner.Outcome, _ args: [String], kept: String) {
        let report = r.stderr.split(separator: "\n").first { $0.hasPrefix("oss: paused") }
        #expect(report != nil, "\(r.stderr)")
        #expect(report?.contains(kept) == true && report?.contains("checkpoint") == true, "\(r.stderr)")
        #expect(report?.hasSuffix("run the same command again to resume: \(ToolRunner.binary.path) \(args.joined(separator: " "))") == true, "\(r.stderr)")
        #expect(!r.stderr.contains("TaskPaused") && !r.stderr.contains("error"), "\(r.stderr)")
    }

    @Test("a cp -r paused with Ctrl-C resumes when run again with another --jobs: nothing finished is sent again")
    func directoryResumesAtAnotherPace() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let tree = work.appendingPathComponent("tree")
        try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
        for index in 0..<24 { _ = try writeFile(tree.appendingPathComponent("f\(index).bin"), count: 20_000 + index, seed: UInt64(index)) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["pace"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let checkpoints = ["--checkpoint-dir", work.appendingPathComponent("cp").path]
            await server.addFault(LocalOSSFaultRule(operation: .putObject, action: .delay(milliseconds: 150)))
            let first = try await interrupt(
                tool, server, ["cp", "-r", tree.path, "oss://pace/t", "--jobs", "2"] + checkpoints,
                when: { $0[.putObject].requests >= 6 })
            #expect(first.status == 130, "\(first.stderr)")
            await server.clearFaults()
            let sentBefore = await server.stats()[.putObject].requests
            let second = try await tool.run(["cp", "-r", tree.path, "oss://pace/t", "--jobs", "8"] + checkpoints)
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr.contains("oss: resuming batch"), "\(second.stderr)")
            #expect(second.stderr.contains("--jobs 2"), "it says the pace it goes on at: \(second.stderr)")
            let sentAgain = await server.stats()[.putObject].requests - sentBefore
            #expect(sentAgain < 24, "the files the first run finished are not sent again (\(sentAgain) PUTs)")
            #expect(sentAgain >= 24 - sentBefore)
        }
    }

    @Test func uploadPausesAndResumes() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["int"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.bin")
            let crc = try writeFile(file, count: Self.size, seed: 5)
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 60)))
            let args = ["cp", file.path, "oss://int/f.bin", "--part-size", "\(Self.partSize)", "--threads", "2",
                "--checkpoint-dir", work.appendingPathComponent("cp").path, "--multipart-threshold", "0"]
            let r = try await interrupt(tool, server, args) { $0[.uploadPart].requests >= 8 }
            #expect(r.status == 130, "\(r.stderr)")
            #expect(r.stderr.contains("interrupted"), "\(r.stderr)")
            Self.expectPauseReport(r, args, kept: "upload id ")
            #expect(try await uploads(server, "int") == 1, "the paused upload stays on the server")
            await server.clearFaults()
            let again = try await tool.run(args)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("resumed"), "\(again.stdout)")
            #expect(again.stdout.contains("crc64 \(crc)"), "\(again.stdout)")
            // The first report is the bytes the first run sent, at once: no rate (it used to claim GiB/s).
            let firstProgress = again.stderr.split(separator: "\n").first { $0.hasPrefix("upload: ") }
            #expect(firstProgress?.hasSuffix("(--/s)") == true, "\(again.stderr)")
            #expect(try await uploads(server, "int") == 0)
        }
    }

    @Test func uploadCancelsWithNoKeep() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["int"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.bin")
            _ = try writeFile(file, count: Self.size, seed: 6)
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 60)))
            let checkpoints = work.appendingPathComponent("cp")
            let args = ["cp", file.path, "oss://int/f.bin", "--part-size", "\(Self.partSize)", "--threads", "2",
                "--checkpoint-dir", checkpoints.path, "--no-keep-upload-on-cancel", "--multipart-threshold", "0"]
            let r = try await interrupt(tool, server, args) { $0[.uploadPart].requests >= 8 }
            #expect(r.status == 130, "\(r.stderr)")
            #expect(try await uploads(server, "int") == 0, "a cancel aborts the upload")
            let records = try FileManager.default.contentsOfDirectory(atPath: checkpoints.path)
                .filter { $0.hasSuffix(".record") }
            #expect(records.isEmpty, "\(records)")
        }
    }

    @Test func downloadPausesAndResumes() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["int"])) { server in
            let tool = ToolRunner(server: server, home: work)
            let file = work.appendingPathComponent("f.bin")
            let crc = try writeFile(file, count: Self.size, seed: 7)
            let checkpoints = work.appendingPathComponent("cp").path
            let put = try await tool.run(["cp", file.path, "oss://int/f.bin", "--checkpoint-dir", checkpoints])
            #expect(put.status == 0, "\(put.stderr)")
            await server.resetStats()
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 60)))
            let destination = work.appendingPathComponent("back.bin")
            let args = ["cp", "oss://int/f.bin", destination.path, "--part-size", "\(Self.partSize)", "--threads", "2",
                "--checkpoint-dir", checkpoints]
            let r = try await interrupt(tool, server, args) { $0[.getObject].requests >= 8 }
            #expect(r.status == 130, "\(r.stderr)")
            Self.expectPauseReport(r, args, kept: "temporary file")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            await server.clearFaults()
            let again = try await tool.run(args)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("resumed"), "\(again.stdout)")
            #expect(try crcOfFile(destination) == crc)
        }
    }
}
