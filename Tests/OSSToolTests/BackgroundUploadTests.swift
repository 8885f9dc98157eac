import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Background uploads with real processes: the app (`oss _background-app`) and the simulated system transfer daemon
/// (`oss _transfer-daemon`) are children of this test, talking HTTP to the local server in this process.
@Suite("Background upload: app killed, daemon finishes, relaunch reconciles")
struct BackgroundUploadTests {
    static let session = "com.example.tests.background"

    struct Layout {
        let work: URL
        var spool: String { work.appendingPathComponent("spool").path }
        var records: String { work.appendingPathComponent("records").path }
        var file: URL { work.appendingPathComponent("big.bin") }

        /// The app's runs, with the tests' stall limit (15 s): with the default 5 s, a CompleteMultipartUpload whose
        /// answer a loaded machine delayed was abandoned and sent again, and the test counted two Completes (a
        /// fresh-clone run of the test command failed so once).
        func app(_ mode: String, _ extra: [String] = []) -> [String] {
            ["_background-app", mode, "--spool", spool, "--session", BackgroundUploadTests.session, "--records", records,
             "--stall-timeout", "15"] + extra
        }

        func daemon(_ extra: [String] = []) -> [String] {
            ["_transfer-daemon", "--spool", spool, "--session", BackgroundUploadTests.session] + extra
        }

        /// What is left in the records directory and the spool's queues.
        func leftovers() -> [String] {
            var left = (try? FileManager.default.contentsOfDirectory(atPath: records)) ?? []
            for queue in ["submitted", "running", "completed", "files"] {
                let folder = spool + "/" + BackgroundUploadTests.session + "/" + queue
                left += ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).map { queue + "/" + $0 }
            }
            return left
        }
    }

    /// Writes `size` pseudo-random bytes in 1 MiB chunks; returns their CRC-64.
    static func writeBigFile(_ url: URL, size: Int, seed: UInt64) throws -> UInt64 {
        FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var state = seed
        var crc = CRC64()
        var left = size
        var chunk = [UInt64](repeating: 0, count: 1 << 17)
        while left > 0 {
            for i in chunk.indices {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                chunk[i] = state
            }
            let bytes = chunk.withUnsafeBytes { Array($0.prefix(min(left, 1 << 20))) }
            crc.update(bytes)
            try handle.write(contentsOf: bytes)
            left -= bytes.count
        }
        return crc.value
    }

    /// Waits until `condition` holds or `process` ended (at most about a minute).
    static func wait(for process: Process, _ condition: () async -> Bool) async throws {
        var waited = 0
        while await !condition(), process.isRunning, waited < 2400 {
            try await Task.sleep(for: .milliseconds(25))
            waited += 1
        }
    }

    static func object(_ server: LocalOSSServer, bucket: String, key: String) async throws -> OSSHeadObjectResult {
        try await TransferRestartTests().withClient(server) { try await $0.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key)) }
    }

    @Test("64 MiB in 4 MiB parts: app SIGKILLed after submitting, daemon uploads every part, relaunch completes; no part sent twice")
    func appKilledAfterSubmitting() async throws {
        let layout = Layout(work: try makeWorkDirectory())
        defer { try? FileManager.default.removeItem(at: layout.work) }
        let size = 64 << 20
        let crc = try Self.writeBigFile(layout.file, size: size, seed: 17)
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bg-upload"])) { server in
            let tool = ToolRunner(server: server, home: layout.work)
            let marker = layout.work.appendingPathComponent("submitted").path
            let (app, _, _) = try tool.start(
                layout.app("start", [
                    "--bucket", "bg-upload", "--key", "big.bin", "--file", layout.file.path, "--part-size", String(4 << 20),
                    "--submitted-marker", marker, "--wait-for-kill",
                ]))
            try await Self.wait(for: app) { FileManager.default.fileExists(atPath: marker) }
            #expect(app.isRunning, "the app process ended before it was killed")
            kill(app.processIdentifier, SIGKILL)
            await waitForExit(app)
            #expect(app.terminationReason == .uncaughtSignal)
            // Nothing was sent by the app itself: every part is the daemon's.
            #expect(await server.stats()[.uploadPart].requests == 0)

            let daemon = try await tool.run(layout.daemon(["--exit-when-idle"]))
            #expect(daemon.status == 0, "\(daemon.stderr)")
            #expect(daemon.stdout.contains("performed 16 task(s)"), "\(daemon.stdout)")
            let afterDaemon = await server.stats()
            #expect(afterDaemon[.uploadPart].requests == 16)
            #expect(afterDaemon[.uploadPart].requestBodyBytes == Int64(size))
            #expect(afterDaemon[.completeMultipartUpload].requests == 0)

            let relaunch = try await tool.run(layout.app("resume"))
            #expect(relaunch.status == 0, "\(relaunch.stderr)")
            #expect(relaunch.stdout.contains("done-before=0 verified=16 failed=0 submitted=0"), "\(relaunch.stdout)")
            #expect(relaunch.stdout.contains("finished=true crc64=\(crc)"), "\(relaunch.stdout)")

            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 16, "a part was sent twice")
            #expect(stats[.initiateMultipartUpload].requests == 1)
            #expect(stats[.completeMultipartUpload].requests == 1)
            let head = try await Self.object(server, bucket: "bg-upload", key: "big.bin")
            #expect(head.contentLength == Int64(size))
            #expect(head.crc64 == crc)
            #expect(layout.leftovers().isEmpty, "left behind: \(layout.leftovers())")
        }
    }

    @Test("a daemon SIGKILLed mid-task: its claimed parts come back cancelled and the relaunch submits them again")
    func daemonKilledMidTask() async throws {
        let layout = Layout(work: try makeWorkDirectory())
        defer { try? FileManager.default.removeItem(at: layout.work) }
        let parts = 10
        let partSize = 256 << 10
        let size = parts * partSize - 1234
        let crc = try Self.writeBigFile(layout.file, size: size, seed: 29)
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bg-upload"])) { server in
            let tool = ToolRunner(server: server, home: layout.work)
            let started = try await tool.run(
                layout.app("start", [
                    "--bucket", "bg-upload", "--key", "k.bin", "--file", layout.file.path, "--part-size", String(partSize),
                ]))
            #expect(started.status == 0, "\(started.stderr)")
            // Slow answers, so the daemon surely has tasks in flight when it is killed.
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 1000)))
            let (daemon, _, _) = try tool.start(layout.daemon(["--concurrency", "2"]))
            try await Self.wait(for: daemon) { await server.stats()[.uploadPart].requests >= 4 }
            #expect(daemon.isRunning, "the daemon ended before it was killed")
            kill(daemon.processIdentifier, SIGKILL)
            await waitForExit(daemon)
            #expect(daemon.terminationReason == .uncaughtSignal)
            await server.clearFaults()

            let attach = try await tool.run(layout.app("resume", ["--once"]))
            #expect(attach.status == 0, "\(attach.stderr)")
            let fields = Self.fields(attach.stdout)
            let failed = try #require(fields["failed"])
            let verified = try #require(fields["verified"])
            #expect(failed >= 1, "no task was in flight at the kill: \(attach.stdout)")
            #expect(failed <= 2)
            #expect(verified >= 1 && verified + failed <= parts, "\(attach.stdout)")
            #expect(fields["submitted"] == failed, "the cancelled parts are submitted again: \(attach.stdout)")
            #expect(fields["finished"] == nil)

            let second = try await tool.run(layout.daemon(["--exit-when-idle"]))
            #expect(second.status == 0, "\(second.stderr)")
            let relaunch = try await tool.run(layout.app("resume"))
            #expect(relaunch.status == 0, "\(relaunch.stderr)")
            #expect(relaunch.stdout.contains("finished=true crc64=\(crc)"), "\(relaunch.stdout)")

            let stats = await server.stats()
            #expect(stats[.uploadPart].requests >= Int64(parts))
            #expect(stats[.uploadPart].requests <= Int64(parts + failed), "only the cancelled parts were sent again")
            #expect(stats[.completeMultipartUpload].requests == 1)
            let head = try await Self.object(server, bucket: "bg-upload", key: "k.bin")
            #expect(head.contentLength == Int64(size))
            #expect(head.crc64 == crc)
            #expect(layout.leftovers().isEmpty, "left behind: \(layout.leftovers())")
        }
    }

    @Test("oss demo --background exits 0: parts and ranges finished while the app was dead, server counters, identical")
    func demoBackground() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        var tool = ToolRunner(home: work)
        tool.environment["TMPDIR"] = work.path
        let outcome = try await tool.run(["demo", "--background", "--size-mib", "8", "--part-size", String(1 << 20)])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(outcome.stdout.contains("UploadPart requests so far: 0"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("parts finished while the app was not running: 8 (8.0 MiB)"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("done-before=0 verified=8 failed=0"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("UploadPart requests: 8 for 8 parts (no part sent twice)"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("server counters: InitiateMultipartUpload 1, UploadPart 8 (8.0 MiB), CompleteMultipartUpload 1"), "\(outcome.stdout)")
        // The background download: killed after submitting, the daemon fetches, the relaunch verifies and places.
        #expect(outcome.stdout.contains("GetObject requests so far: 0"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("ranges finished while the app was not running: 8 (8.0 MiB)"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("nothing is in place yet"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("kind=download"), "\(outcome.stdout)")
        #expect(outcome.stdout.components(separatedBy: "done-before=0 verified=8 failed=0 submitted=0").count == 3, "\(outcome.stdout)")
        #expect(outcome.stdout.contains("GetObject requests: 8 for 8 ranges (no range fetched twice)"), "\(outcome.stdout)")
        #expect(outcome.stdout.contains("downloaded in the background: identical."), "\(outcome.stdout)")
    }

    /// The numeric `name=value` fields of the first `attach:` line (`finished=true` maps to 1).
    static func fields(_ output: String) -> [String: Int] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("attach: transfer=") }) else { return [:] }
        var fields: [String: Int] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            if let value = Int(parts[1]) { fields[String(parts[0])] = value }
            if parts[1] == "true" { fields[String(parts[0])] = 1 }
        }
        return fields
    }
}
