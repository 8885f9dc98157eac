import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two real `oss cp` processes on one checkpoint: the transfer's lock has one owner, a second process fails at once
/// with `TransferInUse` (exit status 6) instead of waiting or sharing the upload, and a lock left by a killed
/// process is taken over.
@Suite("oss cp: one transfer, one lock owner across processes")
struct TransferLockTests {
    static let partSize = 102_400
    static let size = 30 * partSize + 321

    /// A running child whose output is drained as it comes.
    struct Child {
        let process: Process
        let stdout: Task<Data, Never>
        let stderr: Task<Data, Never>

        init(_ tool: ToolRunner, _ arguments: [String]) throws {
            let (process, out, err) = try tool.start(arguments)
            self.process = process
            stdout = Task { await readToEnd(out) }
            stderr = Task { await readToEnd(err) }
        }

        func finish() async -> ToolRunner.Outcome {
            let (o, e) = (await stdout.value, await stderr.value)
            await waitForExit(process)
            return .init(
                status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self),
                stderr: String(decoding: e, as: UTF8.self))
        }
    }

    /// Waits until the server has seen `count` requests of `operation` (the first process then holds the lock).
    func waitForParts(
        _ server: LocalOSSServer, _ operation: LocalOSSOperation, _ count: Int64, while child: Child
    ) async throws {
        var waited = 0
        while await server.stats()[operation].requests < count && waited < 2400 && child.process.isRunning {
            try await Task.sleep(for: .milliseconds(25))
            waited += 1
        }
    }

    /// A work directory with a file of `size` bytes from `seed` (`f.bin`, also the object `oss://lock/f.bin` for a
    /// download), a server with bucket `lock` whose part requests (UploadPart, or GetObject for a download) are
    /// delayed by `delay`, and the `oss cp` arguments of the transfer with a checkpoint directory.
    struct Setup {
        let server: LocalOSSServer
        let tool: ToolRunner
        let checkpoints: URL
        let crc: UInt64
        let arguments: [String]
        /// The download's destination (downloads only).
        let target: URL
    }

    /// Also starts the first `oss cp` and waits until the server has seen `parts` of its part requests (it then
    /// holds the transfer's lock) before running `body`.
    func withFirstProcess(
        seed: UInt64, delay: Int, threads: Int, parts: Int64, download: Bool = false,
        _ body: (Setup, Child) async throws -> Void
    ) async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["lock"])) { server in
            let file = work.appendingPathComponent("f.bin")
            let checkpoints = work.appendingPathComponent("cp")
            let crc = try writeFile(file, count: Self.size, seed: seed)
            let target = work.appendingPathComponent("out.bin")
            let operation: LocalOSSOperation = download ? .getObject : .uploadPart
            if download {
                try await withOSSClient(
                    endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider
                ) { client in
                    _ = try await client.putObject(
                        OSSPutObjectRequest(bucketName: "lock", objectKey: "f.bin", data: try Data(contentsOf: file)))
                }
            }
            await server.addFault(LocalOSSFaultRule(operation: operation, action: .delay(milliseconds: delay)))
            let (from, to) = download ? ("oss://lock/f.bin", target.path) : (file.path, "oss://lock/f.bin")
            let arguments = ["cp", from, to, "--part-size", "\(Self.partSize)", "--threads", "\(threads)",
                "--checkpoint-dir", checkpoints.path, "--multipart-threshold", "0"]
            let setup = Setup(
                server: server, tool: ToolRunner(server: server, home: work), checkpoints: checkpoints, crc: crc,
                arguments: arguments, target: target)
            let first = try Child(setup.tool, arguments)
            try await waitForParts(server, operation, parts, while: first)
            try await body(setup, first)
        }
    }

    func lockFiles(_ directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { $0.hasSuffix(".lock") }
    }

    @Test("a second `oss cp` of the same checkpoint fails at once with TransferInUse; the first finishes the object")
    func secondProcessFailsAtOnce() async throws {
        // Slow parts keep the first process busy for a long time (1 part in flight, 1 s each, 31 parts).
        try await withFirstProcess(seed: 61, delay: 1000, threads: 1, parts: 1) { setup, first in
            let (server, tool, checkpoints, crc, args) = (setup.server, setup.tool, setup.checkpoints, setup.crc, setup.arguments)
            #expect(first.process.isRunning)

            let started = ContinuousClock.now
            let second = try await tool.run(args)
            let elapsed = ContinuousClock.now - started
            print("second oss cp exited with \(second.status) after \(elapsed) (first still running: \(first.process.isRunning))")
            #expect(second.status == 6, "\(second.stderr)")
            #expect(second.stderr.contains("TransferInUse"), "\(second.stderr)")
            #expect(second.stderr.contains("in use by another process"), "\(second.stderr)")
            #expect(second.stderr.contains(OSSTestPath.resolved(checkpoints.path)), "the error names the record: \(second.stderr)")
            // It did not wait for the first to finish (that takes 30 s more while the fault is on) and started
            // nothing of its own.
            #expect(first.process.isRunning, "the second process failed while the first was still running")
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1)

            await server.clearFaults()
            let outcome = await first.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(outcome.stdout.contains("crc64 \(crc)"), "\(outcome.stdout)")
            try await withOSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider
            ) { client in
                let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "lock", objectKey: "f.bin"))
                #expect(head.contentLength == Int64(Self.size))
                #expect(head.crc64 == crc)
            }
            #expect(lockFiles(checkpoints).isEmpty, "released by its one owner")
        }
    }

    @Test("a second `oss cp` download of the same checkpoint fails at once; the first writes the right file")
    func secondDownloadFailsAtOnce() async throws {
        try await withFirstProcess(seed: 63, delay: 1000, threads: 1, parts: 1, download: true) { setup, first in
            let second = try await setup.tool.run(setup.arguments)
            #expect(second.status == 6, "\(second.stderr)")
            #expect(second.stderr.contains("TransferInUse"), "\(second.stderr)")
            #expect(first.process.isRunning, "the second process failed while the first was still running")
            #expect(await setup.server.stats()[.headObject].requests <= 2, "the second did a HEAD at most")
            await setup.server.clearFaults()
            let outcome = await first.finish()
            #expect(outcome.status == 0, "\(outcome.stderr)")
            #expect(try crcOfFile(setup.target) == setup.crc, "byte-identical")
            #expect(lockFiles(setup.checkpoints).isEmpty)
        }
    }

    @Test("a lock left by a SIGKILLed `oss cp` is taken over: the same command resumes and finishes")
    func lockOfAKilledProcessIsTakenOver() async throws {
        try await withFirstProcess(seed: 62, delay: 100, threads: 2, parts: 6) { setup, first in
            let (server, tool, checkpoints, crc, args) = (setup.server, setup.tool, setup.checkpoints, setup.crc, setup.arguments)
            kill(first.process.processIdentifier, SIGKILL)
            _ = await first.finish()
            #expect(first.process.terminationReason == .uncaughtSignal, "killed mid-transfer, not finished")
            #expect(lockFiles(checkpoints).count == 1, "the killed holder's lock file is left behind")

            await server.clearFaults()
            let again = try await tool.run(args)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains("resumed"), "\(again.stdout)")
            #expect(again.stdout.contains("crc64 \(crc)"), "\(again.stdout)")
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1, "the killed process's upload was resumed")
            #expect(lockFiles(checkpoints).isEmpty)
        }
    }
}
