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

/// Background downloads with real processes: ranges as download tasks with `If-Match`, performed by the simulated
/// daemon while the app process is dead, placed and CRC-checked by the relaunched app.
@Suite("Background download: app killed, daemon fetches the ranges, relaunch places and verifies them")
struct BackgroundDownloadTests {
    typealias Layout = BackgroundUploadTests.Layout

    /// Puts `file` as `bucket/key` from this process.
    static func put(_ server: LocalOSSServer, _ file: URL, bucket: String, key: String) async throws {
        _ = try await TransferRestartTests().withClient(server) {
            try await $0.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: key, fileURL: file))
        }
    }

    @Test("24 MiB in 4 MiB ranges: app SIGKILLed after submitting, daemon downloads, relaunch completes; identical, no range twice")
    func appKilledAfterSubmitting() async throws {
        let layout = Layout(work: try makeWorkDirectory())
        defer { try? FileManager.default.removeItem(at: layout.work) }
        let size = 24 << 20
        let crc = try BackgroundUploadTests.writeBigFile(layout.file, size: size, seed: 41)
        let destination = layout.work.appendingPathComponent("copy.bin")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bg-download"])) { server in
            try await Self.put(server, layout.file, bucket: "bg-download", key: "obj.bin")
            let tool = ToolRunner(server: server, home: layout.work)
            let marker = layout.work.appendingPathComponent("submitted").path
            let (app, _, _) = try tool.start(
                layout.app("start", [
                    "--download", "--bucket", "bg-download", "--key", "obj.bin", "--file", destination.path,
                    "--part-size", String(4 << 20), "--submitted-marker", marker, "--wait-for-kill",
                ]))
            try await BackgroundUploadTests.wait(for: app) { FileManager.default.fileExists(atPath: marker) }
            #expect(app.isRunning, "the app process ended before it was killed")
            kill(app.processIdentifier, SIGKILL)
            await waitForExit(app)
            #expect(await server.stats()[.getObject].requests == 0)

            let daemon = try await tool.run(layout.daemon(["--exit-when-idle"]))
            #expect(daemon.status == 0, "\(daemon.stderr)")
            #expect(await server.stats()[.getObject].requests == 6)
            #expect(!FileManager.default.fileExists(atPath: destination.path), "nothing is in place before the relaunch")

            let relaunch = try await tool.run(layout.app("resume"))
            #expect(relaunch.status == 0, "\(relaunch.stderr)")
            #expect(relaunch.stdout.contains("done-before=0 verified=6 failed=0 submitted=0"), "\(relaunch.stdout)")
            #expect(relaunch.stdout.contains("finished=true crc64=\(crc) kind=download"), "\(relaunch.stdout)")
            let stats = await server.stats()
            #expect(stats[.getObject].requests == 6, "a range was fetched twice")
            #expect(stats[.getObject].responseBodyBytes == Int64(size))
            #expect(try crcOfFile(destination) == crc)
            #expect(layout.leftovers().isEmpty, "left behind: \(layout.leftovers())")
            let temporary = try FileManager.default.contentsOfDirectory(atPath: layout.work.path).filter { $0.hasSuffix(".download") }
            #expect(temporary.isEmpty, "temporary files left: \(temporary)")
        }
    }

    @Test("the object is replaced while the app is dead: the relaunch ends in objectChanged and removes its temporary file")
    func objectReplacedMeanwhile() async throws {
        let layout = Layout(work: try makeWorkDirectory())
        defer { try? FileManager.default.removeItem(at: layout.work) }
        _ = try BackgroundUploadTests.writeBigFile(layout.file, size: 3 << 20, seed: 43)
        let destination = layout.work.appendingPathComponent("copy.bin")
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bg-download"])) { server in
            try await Self.put(server, layout.file, bucket: "bg-download", key: "obj.bin")
            let tool = ToolRunner(server: server, home: layout.work)
            let started = try await tool.run(
                layout.app("start", [
                    "--download", "--bucket", "bg-download", "--key", "obj.bin", "--file", destination.path,
                    "--part-size", String(1 << 20),
                ]))
            #expect(started.status == 0, "\(started.stderr)")
            // Another writer replaces the object before the system runs the tasks.
            let other = layout.work.appendingPathComponent("other.bin")
            _ = try BackgroundUploadTests.writeBigFile(other, size: 3 << 20, seed: 44)
            try await Self.put(server, other, bucket: "bg-download", key: "obj.bin")

            let daemon = try await tool.run(layout.daemon(["--exit-when-idle"]))
            #expect(daemon.status == 0, "\(daemon.stderr)")
            let relaunch = try await tool.run(layout.app("resume"))
            #expect(relaunch.status == 0, "\(relaunch.stderr)")
            #expect(relaunch.stdout.contains("object-changed=true"), "\(relaunch.stdout)")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(layout.leftovers().isEmpty, "left behind: \(layout.leftovers())")
            let temporary = try FileManager.default.contentsOfDirectory(atPath: layout.work.path).filter { $0.hasSuffix(".download") }
            #expect(temporary.isEmpty, "temporary files left: \(temporary)")
        }
    }
}
