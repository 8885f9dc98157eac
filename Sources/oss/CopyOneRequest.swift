import AliyunOSS
import ArgumentParser

import Foundation

extension Copy {
    /// `oss cp FILE oss://b/k` for a file smaller than `--multipart-threshold`: one PutObject streamed from the file,
    /// its CRC-64 checked against the server's as every upload's is. Nothing to resume, so no checkpoint; Ctrl-C
    /// cancels the request. A file whose size or modification time moved while it was sent is reported (exit 5):
    /// the object may hold a mix of old and new bytes, and running the command again sends it whole.
    func uploadInOneRequest(_ file: URL, size: Int64, to target: OSSURI) async throws {
        let before = try Self.fileStamp(file)
        let progress = ProgressReporter(label: "upload")
        var request = OSSPutObjectRequest(
            bucketName: target.bucket, objectKey: target.key, source: .file(file), metadata: try objects.metadata(),
            uploadProgress: { _, done, total in Task { await progress.report(done: done, total: total) } })
        request.sendContentMD5 = contentMD5
        if let trafficLimit { request.headers["x-oss-traffic-limit"] = String(trafficLimit) }
        let put = request
        let result: OSSPutObjectResult
        do {
            result = try await withClient(connection) { client in
                try await runInterruptibly { try await client.putObject(put) }
            }
        } catch {
            await progress.finish()
            throw error
        }
        await progress.finish()
        guard try Self.fileStamp(file) == before else {
            throw CLIFailure(
                .cannotResume,
                "\(source) changed while it was uploaded: \(target) may hold a mix of its old and new bytes; run the command again to send it whole")
        }
        say("uploaded \(source) to \(target) etag \(result.eTag ?? "-") crc64 \(result.crc64.map(String.init) ?? "-")"
            + " (one request: \(formatBytes(size)) is under --multipart-threshold)")
    }

    /// The file's size and modification time, compared before and after a one-request upload.
    private static func fileStamp(_ file: URL) throws -> (size: Int64, modified: Double) {
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        return (
            (attributes[.size] as? NSNumber)?.int64Value ?? -1,
            (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        )
    }
}
