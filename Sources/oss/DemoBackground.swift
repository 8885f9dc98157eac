import AliyunOSS
import OSSLocalServer

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `oss demo --background`: a background upload carried by the simulated system transfer daemon, on the embedded
/// local server. The app process submits its part tasks and is killed; the daemon uploads every part while no
/// app process runs; a relaunched app process reconciles, verifies and completes.
struct BackgroundDemo {
    let sizeMiB: Int
    let partSize: Int64
    let step: (Int, String) -> Void

    func run(server: LocalOSSServer, client: OSSClient, work: URL) async throws {
        let bucket = "demo-bucket"
        let key = "videos/background.bin"
        let spool = work.appendingPathComponent("spool").path
        let records = work.appendingPathComponent("background-records").path
        let session = "com.example.oss-demo.background"
        _ = try await client.putBucket(OSSPutBucketRequest(bucketName: bucket))
        let file = work.appendingPathComponent("background.bin")
        let total = Int64(sizeMiB) << 20
        step(2, "Writing a \(sizeMiB) MiB file of random bytes.")
        let localCRC = try Demo.writeRandomFile(file, bytes: total)
        say("    local CRC-64: \(localCRC)")
        let common = ["--spool", spool, "--session", session]

        step(
            3,
            "App process: initiates the upload, copies each part with its CRC-64 and MD5, submits one task per part, "
                + "then is killed (SIGKILL).")
        let marker = work.appendingPathComponent("submitted").path
        let app = try child(
            ["_background-app", "start"] + common + [
                "--records", records, "--bucket", bucket, "--key", key, "--file", file.path, "--part-size", String(partSize),
                "--submitted-marker", marker, "--wait-for-kill",
            ], server: server)
        while !FileManager.default.fileExists(atPath: marker) && app.process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard app.process.isRunning else { throw CLIFailure(.clientError, "the app process failed: \(await app.finish().stderr)") }
        kill(app.process.processIdentifier, SIGKILL)
        let killed = await app.finish()
        for line in killed.stdout.split(separator: "\n") { say("    app[\(app.process.processIdentifier)]> \(line)") }
        let sentSoFar = await server.stats()[.uploadPart].requests
        say("    app process \(app.process.processIdentifier) killed with SIGKILL; UploadPart requests so far: \(sentSoFar)")

        step(4, "Simulated system transfer daemon (a separate process): performs the submitted tasks while no app process runs.")
        let daemon = try await child(["_transfer-daemon"] + common + ["--exit-when-idle"], server: server).finish()
        guard daemon.status == 0 else { throw CLIFailure(.clientError, "the daemon failed: \(daemon.stderr)") }
        for line in daemon.stdout.split(separator: "\n") { say("    \(line)") }
        let afterDaemon = await server.stats()[.uploadPart]
        say("    parts finished while the app was not running: \(afterDaemon.requests) (\(formatBytes(afterDaemon.requestBodyBytes)))")

        step(5, "Relaunched app process: attaches to the session, maps each completion to its part, checks CRC-64, completes.")
        let relaunch = try await child(["_background-app", "resume"] + common + ["--records", records], server: server).finish()
        guard relaunch.status == 0 else { throw CLIFailure(.clientError, "the relaunched app failed: \(relaunch.stderr)") }
        for line in relaunch.stdout.split(separator: "\n") { say("    \(line)") }
        let fields = Self.fields(relaunch.stdout)
        say(
            "    the relaunch reconciled \(fields["verified"] ?? "?") part(s) finished while it was not running (each CRC-64 checked), "
                + "submitted \(fields["submitted"] ?? "?") again, and completed the upload (CRC-64 \(fields["crc64"] ?? "?")).")

        step(6, "Checking the object and the server's counters.")
        let stats = await server.stats()
        let parts = (total + partSize - 1) / partSize
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key))
        guard head.crc64 == localCRC, head.contentLength == total else {
            throw CLIFailure(.integrityError, "CRC-64 mismatch: local \(localCRC), object \(String(describing: head.crc64))")
        }
        say("    CRC-64 verified: local \(localCRC) = object \(head.crc64!)")
        guard stats[.uploadPart].requests == parts, stats[.completeMultipartUpload].requests == 1 else {
            throw CLIFailure(.integrityError, "UploadPart requests \(stats[.uploadPart].requests) for \(parts) parts")
        }
        say("    UploadPart requests: \(stats[.uploadPart].requests) for \(parts) parts (no part sent twice); CompleteMultipartUpload: 1")
        let copy = work.appendingPathComponent("background.copy")
        let downloaded = try await client.resumableDownload(
            OSSResumableDownloadRequest(bucketName: bucket, objectKey: key, downloadToFileURL: copy, partSize: partSize))
        guard downloaded.crc64 == localCRC, try Demo.filesEqual(file, copy) else {
            throw CLIFailure(.integrityError, "the downloaded object differs from the original")
        }
        say("    downloaded back: identical.")
    }

    /// The `name=value` fields of the first `attach:` line.
    static func fields(_ output: String) -> [String: String] {
        guard let line = output.split(separator: "\n").first(where: { $0.hasPrefix("attach: transfer=") }) else { return [:] }
        var fields: [String: String] = [:]
        for pair in line.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        return fields
    }

    /// A child process of this executable, its output collected.
    struct Child {
        let process: Process
        let out: Pipe
        let err: Pipe

        func finish() async -> (status: Int32, stdout: String, stderr: String) {
            let (out, err, process) = (self.out, self.err, self.process)
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    let o = out.fileHandleForReading.readDataToEndOfFile()
                    let e = err.fileHandleForReading.readDataToEndOfFile()
                    process.waitUntilExit()
                    continuation.resume(
                        returning: (process.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self)))
                }
            }
        }
    }

    func child(_ arguments: [String], server: LocalOSSServer) throws -> Child {
        let process = Process()
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["OSS_SESSION_TOKEN"] = nil
        environment["OSS_ACCESS_KEY_ID"] = server.credentials.accessKeyId
        environment["OSS_ACCESS_KEY_SECRET"] = server.credentials.accessKeySecret
        environment["OSS_ENDPOINT"] = server.endpoint.absoluteString
        environment["OSS_REGION"] = "cn-hangzhou"
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return Child(process: process, out: out, err: err)
    }
}
