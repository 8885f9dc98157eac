import Foundation
import OSSResumable

extension OSSBackgroundTransferService {
    /// Ends a background transfer for good: cancels its tasks in the system, aborts its multipart upload (an
    /// upload) and removes its part copies or temporary file and its record. Events its running tasks still
    /// report are dropped as unknown at the next attach.
    ///
    /// - Throws: `.invalidArgument` when no record has this id; `.transferInUse` when another process holds it.
    public func cancel(transferId: String) async throws {
        try await withRecord(transferId) { name, kind in
            switch kind {
            case .upload:
                guard let record = try await load(OSSBackgroundUploadRecord.self, name: name) else { return }
                try await system.cancelTasks(describedAs: Set(record.parts.map { record.taskDescription(part: $0.number) }))
                do {
                    _ = try await client.abortMultipartUpload(
                        OSSAbortMultipartUploadRequest(bucketName: record.bucket, objectKey: record.key, uploadId: record.uploadId))
                } catch let error as OSSServerError where error.code == "NoSuchUpload" {
                    // Already gone: nothing to abort.
                }
                try await sweep(record)
            case .download:
                guard let record = try await load(OSSBackgroundDownloadRecord.self, name: name) else { return }
                try await system.cancelTasks(describedAs: Set(record.parts.map { record.taskDescription(part: $0.number) }))
                try await abandonDownload(record)
            }
        }
    }
}
