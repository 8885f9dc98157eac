import Foundation
import OSSResumable

extension OSSBackgroundTransferService {
    /// Ends a background transfer for good: cancels its tasks in the system, aborts its multipart upload (an
    /// upload) and removes its part copies or temporary file and its record. Events its running tasks still
    /// report are dropped as unknown at the next attach.
    ///
    /// - Throws: `.invalidArgument` when no record has this id; `.fileCantWrite` when another process holds it.
    public func cancel(transferId: String) async throws {
        let (uploadName, downloadName) = (Self.recordName(transferId), Self.downloadRecordName(transferId))
        let names = try recordNames()
        guard let name = [uploadName, downloadName].first(where: names.contains) else {
            throw OSSClientError.invalidArgument("no background transfer \(transferId)")
        }
        guard let lock = try await lockRecord(name) else {
            throw OSSClientError(.fileCantWrite, "background transfer \(transferId) is in use by another process")
        }
        defer { withExtendedLifetime(lock) {} }
        if name == uploadName, let record = try await load(OSSBackgroundUploadRecord.self, name: name) {
            try await system.cancelTasks(describedAs: Set(record.parts.map { record.taskDescription(part: $0.number) }))
            do {
                _ = try await client.abortMultipartUpload(
                    OSSAbortMultipartUploadRequest(bucketName: record.bucket, objectKey: record.key, uploadId: record.uploadId))
            } catch let error as OSSServerError where error.code == "NoSuchUpload" {
                // Already gone: nothing to abort.
            }
            try await sweep(record)
        } else if let record = try await load(OSSBackgroundDownloadRecord.self, name: name) {
            try await system.cancelTasks(describedAs: Set(record.parts.map { record.taskDescription(part: $0.number) }))
            try await abandonDownload(record)
        }
    }
}
