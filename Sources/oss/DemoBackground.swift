import AliyunOSS
import OSSLocalServer

import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `oss demo --background`: a background upload, then a background download, carried by the simulated system
/// transfer daemon on the embedded local server. Each time the app process submits its tasks and is killed; the
/// daemon performs every task while no app process runs; a relaunched app process reconciles, verifies CRC-64
/// and completes. The embedded server's own counters show that no part or range was sent twice.
struct BackgroundDemo {
    let sizeMiB: Int
    let partSize: Int64
    let step: (Int, String) -> Void

    func run(server: LocalOSSServer, client: OSSClient, work: URL) async throws {
        let bucket = "demo-bucket"
        let key = "videos/background.bin"
        let common = [
            "--spool", work.appendingPathComponent("spool").path, "--session", "com.example.oss-demo.background",
        ]
        let records = ["--records", work.appendingPathComponent("background-records").path]
        _ = try await client.putBucket(OSSPutBucketRequest(bucketName: bucket))
        let file = work.appendingPathComponent("background.bin")
        let total = Int64(sizeMiB) << 20
        let parts = (total + partSize - 1) / partSize
        step(2, "Writing a \(sizeMiB) MiB file of random bytes.")
        let localCRC = try Demo.writeRandomFile(file, bytes: total)
        say("    local CRC-64: \(localCRC)")

        step(
            3,
            "App process: initiates the upload, copies each part with its CRC-64 and MD5, submits one task per part, "
                + "then is killed (SIGKILL).")
        let transfer = ["--bucket", bucket, "--key", key, "--part-size", String(partSize)]
        let uploader = try await startAndKill(
            ["_background-app", "start"] + common + records + transfer + ["--file", file.path], work: work, server: server)
        let sentByApp = await server.stats()[.uploadPart].requests
        say("    app process \(uploader) killed with SIGKILL; UploadPart requests so far: \(sentByApp)")

        step(4, "Simulated system transfer daemon (a separate process): performs the submitted tasks while no app process runs.")
        try await runDaemon(common, server: server)
        let afterDaemon = await server.stats()[.uploadPart]
        say("    parts finished while the app was not running: \(afterDaemon.requests) (\(formatBytes(afterDaemon.requestBodyBytes)))")

        try await relaunch(
            step: 5, "Relaunched app process: attaches to the session, maps each completion to its part, checks CRC-64, completes.",
            common + records, units: "part(s)", ending: "completed the upload", server: server)

        step(6, "Checking the object and the local server's counters.")
        let stats = await server.stats()
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key))
        guard head.crc64 == localCRC, head.contentLength == total else {
            throw CLIFailure(.integrityError, "CRC-64 mismatch: local \(localCRC), object \(String(describing: head.crc64))")
        }
        say("    CRC-64 verified: local \(localCRC) = object \(head.crc64!)")
        guard stats[.uploadPart].requests == parts, stats[.completeMultipartUpload].requests == 1 else {
            throw CLIFailure(.integrityError, "UploadPart requests \(stats[.uploadPart].requests) for \(parts) parts")
        }
        say("    UploadPart requests: \(stats[.uploadPart].requests) for \(parts) parts (no part sent twice); CompleteMultipartUpload: 1")
        say(
            "    server counters: InitiateMultipartUpload \(stats[.initiateMultipartUpload].requests), UploadPart "
                + "\(stats[.uploadPart].requests) (\(formatBytes(stats[.uploadPart].requestBodyBytes))), "
                + "CompleteMultipartUpload \(stats[.completeMultipartUpload].requests)")

        step(
            7,
            "Background download: the app process pins the object (HEAD: size, ETag, CRC-64), submits one download task "
                + "per range (presigned GET, Range, If-Match), then is killed (SIGKILL).")
        let copy = work.appendingPathComponent("background.copy")
        let gets = stats[.getObject].requests
        let downloader = try await startAndKill(
            ["_background-app", "start", "--download"] + common + records + transfer + ["--file", copy.path], work: work,
            server: server)
        let fetchedByApp = await server.stats()[.getObject].requests - gets
        say("    app process \(downloader) killed with SIGKILL; GetObject requests so far: \(fetchedByApp)")

        step(8, "The daemon fetches every range while no app process runs.")
        try await runDaemon(common, server: server)
        let fetched = await server.stats()[.getObject]
        let fetchedBytes = fetched.responseBodyBytes - stats[.getObject].responseBodyBytes
        say("    ranges finished while the app was not running: \(fetched.requests - gets) (\(formatBytes(fetchedBytes)))")
        guard !FileManager.default.fileExists(atPath: copy.path) else {
            throw CLIFailure(.integrityError, "the download is in place before any app process verified it")
        }
        say("    nothing is in place yet: only a relaunched app process verifies and places the ranges")

        let downloaded = try await relaunch(
            step: 9,
            "Relaunched app process: checks each range (206, the pinned ETag, its length), places it, checks CRC-64, "
                + "moves the file into place.",
            common + records, units: "range(s)", ending: "placed the file", server: server)

        step(10, "Comparing the background download with the original, and the server's counters.")
        let rangeRequests = await server.stats()[.getObject].requests - gets
        guard downloaded["crc64"] == String(localCRC), try Demo.filesEqual(file, copy) else {
            throw CLIFailure(.integrityError, "the background download differs from the original")
        }
        say("    CRC-64 verified: local \(localCRC) = downloaded \(localCRC)")
        guard rangeRequests == parts else {
            throw CLIFailure(.integrityError, "GetObject requests \(rangeRequests) for \(parts) ranges")
        }
        say("    GetObject requests: \(rangeRequests) for \(parts) ranges (no range fetched twice)")
        say("    downloaded in the background: identical.")
    }

    /// Starts an app process that submits its tasks, waits until it says so, and kills it. Returns its pid.
    private func startAndKill(_ arguments: [String], work: URL, server: LocalOSSServer) async throws -> Int32 {
        let marker = work.appendingPathComponent("submitted-\(UUID().uuidString)").path
        let app = try child(arguments + ["--submitted-marker", marker, "--wait-for-kill"], server: server)
        while !FileManager.default.fileExists(atPath: marker) && app.process.isRunning {
            try await Task.sleep(for: .milliseconds(20))
        }
        guard app.process.isRunning else { throw CLIFailure(.clientError, "the app process failed: \(await app.finish().stderr)") }
        let pid = app.process.processIdentifier
        kill(pid, SIGKILL)
        let killed = await app.finish()
        for line in killed.stdout.split(separator: "\n") { say("    app[\(pid)]> \(line)") }
        return pid
    }

    /// Runs the simulated daemon until it is idle, printing its summary.
    private func runDaemon(_ common: [String], server: LocalOSSServer) async throws {
        let daemon = try await child(["_transfer-daemon"] + common + ["--exit-when-idle"], server: server).finish()
        guard daemon.status == 0 else { throw CLIFailure(.clientError, "the daemon failed: \(daemon.stderr)") }
        for line in daemon.stdout.split(separator: "\n") { say("    \(line)") }
    }

    /// Step `number`: runs a relaunched app process until its transfers are finished, prints what its first attach
    /// reconciled, and returns that attach's fields.
    @discardableResult
    private func relaunch(
        step number: Int, _ text: String, _ arguments: [String], units: String, ending: String, server: LocalOSSServer
    ) async throws -> [String: String] {
        step(number, text)
        let relaunch = try await child(["_background-app", "resume"] + arguments, server: server).finish()
        guard relaunch.status == 0 else { throw CLIFailure(.clientError, "the relaunched app failed: \(relaunch.stderr)") }
        for line in relaunch.stdout.split(separator: "\n") { say("    \(line)") }
        let fields = Self.fields(relaunch.stdout)
        say(
            "    the relaunch reconciled \(fields["verified"] ?? "?") \(units) finished while it was not running (each CRC-64 "
                + "checked), submitted \(fields["submitted"] ?? "?") again, and \(ending) (CRC-64 \(fields["crc64"] ?? "?")).")
        return fields
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

    #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
    /// These platforms have no `Process`: the demo's relaunches cannot run there.
    struct Child {
        func finish() async -> (status: Int32, stdout: String, stderr: String) { (1, "", "") }
    }

    func child(_ arguments: [String], server: LocalOSSServer) throws -> Child {
        throw OSSClientError(.invalidArgument, "oss demo --background launches child processes; this platform has none")
    }
    #else
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
    #endif
}
