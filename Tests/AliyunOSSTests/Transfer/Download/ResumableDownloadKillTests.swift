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

@Suite("resumableDownload: kill -9 and resume in another process")
struct ResumableDownloadKillTests {
    @Test(
        "kill -9 mid-download, resume in this process: identical file, at most 2 × threads × partSize fetched again",
        arguments: [3, 12, 30])
    func killAndResume(afterParts: Int64) async throws {
        let binary = try #require(
            sampleBinary("resumable-download"), "build the samples first: swift build --package-path Samples")
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(4_096_000, seed: 51)  // 40 parts of 100 KB
        let threads = 2
        try await withServerAndClient { server, client in
            try await rdPut(client, "kill.bin", bytes)
            await server.resetStats()
            // Slow the parts down so the child is surely mid-download when it is killed.
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 60)))

            let process = try launchSample(binary, against: server, [
                "--key", "kill.bin", "--file", scratch.destination.path, "--checkpoint-dir", scratch.recordDirectory,
                "--part-size", String(rdPartSize), "--threads", String(threads), "--signature-version", "v4",
                "--region", "cn-hangzhou",
            ])

            // Kill once `afterParts` parts of the 40 have been served.
            var waited = 0
            while await rdGetBytes(server) < afterParts * rdPartSize, process.isRunning, waited < 3000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            #expect(process.isRunning, "the child finished or died before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            #expect(process.terminationReason == .uncaughtSignal)

            // Requests of the dead child may still be inside their injected delay: let the counters settle
            // before reading them, so those bytes are not charged to the resumed run.
            // On a loaded machine the server can pause longer than one polling interval, so require the counters to
            // stay still for a full second (four polls in a row).
            var firstRun = await rdGetBytes(server)
            var stillPolls = 0
            for _ in 0..<120 where stillPolls < 4 {
                try await Task.sleep(for: .milliseconds(250))
                let now = await rdGetBytes(server)
                stillPolls = now == firstRun ? stillPolls + 1 : 0
                firstRun = now
            }
            #expect(firstRun < Int64(bytes.count))
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))
            #expect(scratch.records().count == 1)
            #expect(try scratch.temporaryFiles().count == 1)

            await server.clearFaults()
            await server.resetStats()
            let result = try await client.resumableDownload(rdRequest("kill.bin", scratch, threads: threads))
            let secondRun = await rdGetBytes(server)
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.resumedBytes > 0)
            // A request the dead child had fully written can still be read by the server after the counters were reset,
            // so it may be charged to this run: compare with >=, and bound the sum of both runs below.
            #expect(secondRun >= Int64(bytes.count) - result.resumedBytes)
            let refetched = firstRun + secondRun - Int64(bytes.count)
            #expect(refetched >= 0)
            // Parts of 100 KB never reach a checkpoint (128 KiB): what is fetched again is the parts in flight and
            // those that finished while the record was being saved in the background (at most as many again).
            #expect(refetched <= 2 * Int64(threads) * rdPartSize, "fetched again: \(refetched) bytes")
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("an unpaced download killed half way keeps what it wrote: at most threads × 128 KiB + 1.5 MiB of it is fetched again")
    func unpacedKillKeepsWhatWasWritten() async throws {
        let binary = try #require(
            sampleBinary("resumable-download"), "build the samples first: swift build --package-path Samples")
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let partSize: Int64 = 3 << 20  // the half-way point falls inside parts in flight
        let threads = 4
        let bytes = patternBytes(32 << 20, seed: 54)
        try await withServerAndClient { server, client in
            try await rdPut(client, "unpaced.bin", bytes)
            await server.resetStats()
            // No delay and no traffic limit: the parts move at loopback speed, far ahead of any record save.
            let process = try launchSample(binary, against: server, [
                "--key", "unpaced.bin", "--file", scratch.destination.path, "--checkpoint-dir", scratch.recordDirectory,
                "--part-size", String(partSize), "--threads", String(threads), "--signature-version", "v1",
            ])
            // Killed once the child has written half of the object into its (sparse) temporary file.
            var waited = 0
            while rdAllocatedBytes(scratch) < Int64(bytes.count) / 2, process.isRunning, waited < 30_000 {
                try await Task.sleep(for: .milliseconds(1))
                waited += 1
            }
            #expect(process.isRunning, "the child finished or died before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            #expect(process.terminationReason == .uncaughtSignal)

            // What the killed process left: per part, the prefix of its temporary file that holds the object's bytes.
            let temporary = try #require(try scratch.temporaryFiles().first)
            let left = try Data(contentsOf: scratch.root.appendingPathComponent(temporary))
            let held = rdHeldBytes(left, of: bytes, partSize: partSize)
            #expect(held > 0 && held < Int64(bytes.count))

            let result = try await client.resumableDownload(
                rdRequest("unpaced.bin", scratch, partSize: partSize, threads: threads))
            #expect(try scratch.destinationBytes() == bytes)
            let lost = held - result.resumedBytes
            print("UNPACED-KILL held=\(held) kept=\(result.resumedBytes) lost=\(lost)")
            #expect(lost >= 0)
            #expect(
                lost <= Int64(threads) * 128 * 1024 + 1536 * 1024,
                "the temporary file held \(held) bytes of the object; the resume kept \(result.resumedBytes)")
            #expect(try scratch.leftovers().isEmpty)
            #expect(
                ((try? FileManager.default.contentsOfDirectory(atPath: scratch.recordDirectory)) ?? []).isEmpty,
                "the record, its lock and its journal are removed")
        }
    }

    /// Runs the sample to completion with `arguments` (after the connection options) and returns its exit
    /// status, standard output and standard error.
    func runSample(_ binary: URL, _ server: LocalOSSServer, _ scratch: RDScratch, _ arguments: [String]) async throws
        -> (status: Int32, out: String, err: String)
    {
        let outURL = scratch.root.appendingPathComponent("sample.out")
        let errURL = scratch.root.appendingPathComponent("sample.err")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--endpoint", server.endpoint.absoluteString, "--bucket", "bkt"] + arguments
        process.environment = [
            "OSS_ACCESS_KEY_ID": server.credentials.accessKeyId,
            "OSS_ACCESS_KEY_SECRET": server.credentials.accessKeySecret,
        ]
        process.standardOutput = out
        process.standardError = err
        try process.run()
        while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
        try out.close()
        try err.close()
        let status = process.terminationStatus
        let stdout = try String(contentsOf: outURL, encoding: .utf8)
        let stderr = try String(contentsOf: errURL, encoding: .utf8)
        try FileManager.default.removeItem(at: outURL)
        try FileManager.default.removeItem(at: errURL)
        return (status, stdout, stderr)
    }

    @Test("the sample prints progress and the CRC-64, and exits non-zero with the error code on failure")
    func sampleOutputAndExitCode() async throws {
        let binary = try #require(
            sampleBinary("resumable-download"), "build the samples first: swift build --package-path Samples")
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(250_000, seed: 52)
        try await withServerAndClient { server, client in
            try await rdPut(client, "sample.bin", bytes)
            let common = [
                "--file", scratch.destination.path, "--checkpoint-dir", scratch.recordDirectory, "--part-size", "102400",
                "--threads", "2", "--signature-version", "v1",
            ]
            let ok = try await runSample(binary, server, scratch, ["--key", "sample.bin"] + common)
            #expect(ok.status == 0, "\(ok.err)")
            #expect(ok.out.contains("progress: 250000/250000 bytes (100%)"))
            #expect(ok.out.contains("CRC64: \(CRC64.checksum(bytes))"))
            #expect(try scratch.destinationBytes() == bytes)

            let missing = try await runSample(binary, server, scratch, ["--key", "missing.bin"] + common)
            #expect(missing.status == 1)
            #expect(missing.err.contains("NoSuchKey"))

            let blocked = try await runSample(
                binary, server, scratch,
                ["--key", "sample.bin", "--file", scratch.destination.path + "/x", "--checkpoint-dir", scratch.recordDirectory])
            #expect(blocked.status == 1)
            #expect(blocked.err.contains("FileCantWrite"))
        }
    }

    @Test("Ctrl-C (SIGINT) in the sample cancels through cancel(): exit 1 with TaskCancelled, resumable afterwards")
    func interruptSample() async throws {
        let binary = try #require(
            sampleBinary("resumable-download"), "build the samples first: swift build --package-path Samples")
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(2_048_000, seed: 53)  // 20 parts
        try await withServerAndClient { server, client in
            try await rdPut(client, "sigint.bin", bytes)
            await server.resetStats()
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 60)))
            let errURL = scratch.root.appendingPathComponent("sigint.err")
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let err = try FileHandle(forWritingTo: errURL)
            let process = Process()
            process.executableURL = binary
            process.arguments = [
                "--endpoint", server.endpoint.absoluteString, "--bucket", "bkt", "--key", "sigint.bin",
                "--file", scratch.destination.path, "--checkpoint-dir", scratch.recordDirectory,
                "--part-size", String(rdPartSize), "--threads", "1", "--signature-version", "v1",
            ]
            process.environment = [
                "OSS_ACCESS_KEY_ID": server.credentials.accessKeyId,
                "OSS_ACCESS_KEY_SECRET": server.credentials.accessKeySecret,
            ]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = err
            try process.run()
            var waited = 0
            while await rdGetBytes(server) < 4 * rdPartSize, process.isRunning, waited < 3000 {
                try await Task.sleep(for: .milliseconds(10))
                waited += 1
            }
            #expect(process.isRunning, "the child finished or died before it could be interrupted")
            kill(process.processIdentifier, SIGINT)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            try err.close()
            #expect(process.terminationReason == .exit)
            #expect(process.terminationStatus == 1)
            #expect(try String(contentsOf: errURL, encoding: .utf8).contains("TaskCancelled"))
            try FileManager.default.removeItem(at: errURL)
            #expect(scratch.records().count == 1)
            #expect(try scratch.temporaryFiles().count == 1)

            await server.clearFaults()
            let result = try await client.resumableDownload(rdRequest("sigint.bin", scratch, threads: 1))
            #expect(result.resumedBytes >= 3 * rdPartSize)
            #expect(try scratch.destinationBytes() == bytes)
        }
    }
}
