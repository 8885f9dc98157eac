import AliyunOSS
import ArgumentParser
import OSSLocalServer

import Foundation

/// `oss demo`: the whole product in one command, with no cloud account.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show resumable upload and download end to end against an in-process local OSS server.")

    @Option(name: .customLong("size-mib"), help: "Size of the demo file in MiB.") var sizeMiB: Int = 64
    @Option(help: "Part size in bytes.") var partSize: Int64 = 4 << 20
    @Option(help: "Parts in flight.") var threads: Int = 4
    @Option(help: "HTTP stack: urlsession or asynchttpclient (default: $OSS_TRANSPORT, else the platform's).")
    var transport: String?
    @Flag(help: "Show a background upload and download instead: each time the app process is killed after submitting its tasks, a simulated system transfer daemon performs them, a relaunched app process reconciles, verifies and completes.")
    var background = false

    func validate() throws {
        guard sizeMiB >= 1 else { throw ValidationError("--size-mib must be at least 1") }
        guard partSize >= 102_400 else { throw ValidationError("--part-size must be at least 102400") }
    }

    func step(_ number: Int, _ text: String) {
        say("\n[\(number)] \(text)")
    }

    func run() async throws {
        try await runCommand {
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("oss-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let records = work.appendingPathComponent("checkpoints").path
            try FileManager.default.createDirectory(atPath: records, withIntermediateDirectories: true)
            let bucket = "demo-bucket"
            let key = "videos/demo.bin"

            step(1, "Starting a local OSS-compatible server in this process (no cloud account needed).")
            try await withLocalOSSServer(LocalOSSServerConfiguration(dataDirectory: work.appendingPathComponent("server"))) { server in
                say("    listening on \(server.endpoint.absoluteString); data in \(server.dataDirectory.path)")
                var configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: .v4)
                configuration.transport = try transportKind(transport)
                say("    HTTP stack: \(configuration.transport.resolved.rawValue)")
                let client = try OSSClient(
                    endpoint: server.endpoint,
                    credentialProvider: OSSStaticCredentialProvider(
                        accessKeyId: server.credentials.accessKeyId, accessKeySecret: server.credentials.accessKeySecret),
                    configuration: configuration)
                do {
                    if background {
                        try await BackgroundDemo(sizeMiB: sizeMiB, partSize: partSize, step: step).run(server: server, client: client, work: work)
                    } else {
                        try await demo(client: client, server: server, work: work, records: records, bucket: bucket, key: key)
                    }
                    try await client.shutdown()
                } catch {
                    try? await client.shutdown()
                    throw error
                }
            }
            say("\nDone: every byte checked. Try it for real: OSS_ACCESS_KEY_ID=… OSS_ACCESS_KEY_SECRET=… oss cp FILE oss://bucket/key --endpoint …")
        }
    }

    func demo(client: OSSClient, server: LocalOSSServer, work: URL, records: String, bucket: String, key: String) async throws {
        step(2, "Creating bucket oss://\(bucket) (PutBucket, signed with V4).")
        _ = try await client.putBucket(OSSPutBucketRequest(bucketName: bucket))

        let file = work.appendingPathComponent("demo.bin")
        step(3, "Writing a \(sizeMiB) MiB file of random bytes to \(file.path).")
        let localCRC = try Self.writeRandomFile(file, bytes: Int64(sizeMiB) << 20)
        say("    local CRC-64: \(localCRC)")

        step(4, "Resumable upload (\(formatBytes(partSize)) parts, \(threads) in flight), cancelled halfway with deleteUploadIdOnCancelling = false.")
        let total = Int64(sizeMiB) << 20
        let bar = ProgressReporter(label: "    upload")
        var upload = OSSResumableUploadRequest(
            bucketName: bucket, objectKey: key, uploadingFileURL: file, partSize: partSize, threadNum: threads,
            recordDirectoryPath: records, deleteUploadIdOnCancelling: false)
        let cancelAt = total / 2
        let handle = upload
        upload.uploadProgress = { _, done, expected in
            Task { await bar.report(done: done, total: expected) }
            if done >= cancelAt { handle.cancel() }
        }
        do {
            _ = try await client.resumableUpload(upload)
            throw CLIFailure(.clientError, "the upload finished before it could be cancelled; try a larger --size-mib")
        } catch let error as OSSClientError where error.code == .taskCancelled {
            await bar.finish()
            let recordFiles = try FileManager.default.contentsOfDirectory(atPath: records)
            say("    cancelled as asked: \(error.code). The checkpoint stays in \(records) (\(recordFiles.count) file(s)) and the upload id stays on the server.")
        }

        step(5, "Resuming from the checkpoint: only the missing parts are sent.")
        let before = await server.stats()
        let resumeBar = ProgressReporter(label: "    resume")
        let resumed = OSSResumableUploadRequest(
            bucketName: bucket, objectKey: key, uploadingFileURL: file, partSize: partSize, threadNum: threads,
            recordDirectoryPath: records, deleteUploadIdOnCancelling: false,
            uploadProgress: { _, done, expected in Task { await resumeBar.report(done: done, total: expected) } })
        let result = try await client.resumableUpload(resumed)
        await resumeBar.finish()
        let after = await server.stats()
        let sent = after[.uploadPart].requestBodyBytes - before[.uploadPart].requestBodyBytes
        say("    resumed after \(formatBytes(result.resumedBytes)) already on the server; this run sent \(formatBytes(sent)) of \(formatBytes(total)).")

        step(6, "Verifying CRC-64 end to end (local file, CompleteMultipartUpload, HeadObject).")
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key))
        guard result.crc64 == localCRC, head.crc64 == localCRC else {
            throw CLIFailure(.integrityError, "CRC-64 mismatch: local \(localCRC), upload \(String(describing: result.crc64)), object \(String(describing: head.crc64))")
        }
        say("    local \(localCRC) = uploaded \(result.crc64!) = object \(head.crc64!); ETag \(result.eTag ?? "-")")

        step(7, "Resumable download back to a new file (ranged GETs with If-Match, CRC-64 combined from the parts).")
        let copy = work.appendingPathComponent("demo.copy")
        let downBar = ProgressReporter(label: "    download")
        let download = OSSResumableDownloadRequest(
            bucketName: bucket, objectKey: key, downloadToFileURL: copy, partSize: partSize, threadNum: threads,
            recordDirectoryPath: records,
            downloadProgress: { _, done, expected in Task { await downBar.report(done: done, total: expected) } })
        let downloaded = try await client.resumableDownload(download)
        await downBar.finish()
        say("    wrote \(formatBytes(downloaded.totalBytes)) with CRC-64 \(downloaded.crc64)")

        step(8, "Comparing the download with the original, byte for byte.")
        guard try Self.filesEqual(file, copy) else {
            throw CLIFailure(.integrityError, "the downloaded file differs from the original")
        }
        say("    identical.")

        step(9, "A presigned GET URL (valid 10 minutes), fetched once with plain HTTP, no credentials.")
        let url = try await client.presignConstrainURL(bucket: bucket, key: key, method: "GET", expiration: 600)
        say("    \(url)")
        // A bare transport of the same kind as the client's: no signing, no retries, just HTTP.
        let transport = client.configuration.transport.makeTransport(configuration: client.configuration)
        let (status, received, crc): (Int, Int64, UInt64)
        do {
            (status, received, crc) = try await transport.send(OSSHTTPRequest(method: "GET", url: url, headers: [:])) { response in
                var received: Int64 = 0
                var crc = CRC64()
                for try await chunk in response.body {
                    received += Int64(chunk.count)
                    chunk.withUnsafeBytes { crc.update($0) }
                }
                return (response.status, received, crc.value)
            }
            try await transport.shutdown()
        } catch {
            try? await transport.shutdown()
            throw error
        }
        guard status == 200, received == total, crc == localCRC else {
            throw CLIFailure(.integrityError, "presigned GET returned HTTP \(status), \(received) bytes, CRC-64 \(crc)")
        }
        say("    HTTP 200, \(formatBytes(received)), CRC-64 matches.")
    }

    /// Writes `bytes` random bytes in 1 MiB chunks and returns their CRC-64.
    static func writeRandomFile(_ url: URL, bytes: Int64) throws -> UInt64 {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        var crc = CRC64()
        var left = bytes
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while left > 0 {
            let n = Int(min(Int64(chunk.count), left))
            for i in stride(from: 0, to: n, by: 8) {
                withUnsafeBytes(of: generator.next() as UInt64) { word in
                    for j in 0..<min(8, n - i) { chunk[i + j] = word[j] }
                }
            }
            chunk[0..<n].withUnsafeBytes { crc.update($0) }
            try handle.write(contentsOf: chunk[0..<n])
            left -= Int64(n)
        }
        return crc.value
    }

    static func filesEqual(_ a: URL, _ b: URL) throws -> Bool {
        let ha = try FileHandle(forReadingFrom: a)
        let hb = try FileHandle(forReadingFrom: b)
        defer {
            try? ha.close()
            try? hb.close()
        }
        while true {
            let x = try ha.read(upToCount: 1 << 20) ?? Data()
            let y = try hb.read(upToCount: 1 << 20) ?? Data()
            if x != y { return false }
            if x.isEmpty { return true }
        }
    }
}
