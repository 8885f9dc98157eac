import Foundation
import OSSResumable

extension OSSClient {
    /// Lists the multipart uploads in `bucketName` (under `prefix`) that no record in `recordDirectoryPath`
    /// refers to and that were initiated at least `olderThan` ago.
    ///
    /// Every page of ListMultipartUploads is read. A record counts as live when it decodes as an upload record
    /// of this bucket; corrupt records do not protect their upload (it could never be resumed anyway).
    /// Keep `olderThan` comfortably longer than your longest upload's start-up: an upload initiated by another
    /// process whose first record is not written yet would otherwise look orphaned.
    ///
    /// - Parameter olderThan: the minimum age; `.zero` lists every unrecorded upload.
    /// - Throws: ``OSSClientError`` (`fileCantRead` when the directory cannot be listed) or ``OSSServerError``.
    public func findOrphanedUploads(
        bucketName: String, prefix: String? = nil, olderThan: Duration, recordDirectoryPath: String
    ) async throws -> [OSSOrphanedUpload] {
        let live = try Self.liveUploadIds(bucketName: bucketName, recordDirectoryPath: recordDirectoryPath)
        let now = Date()
        var orphans: [OSSOrphanedUpload] = []
        for try await page in listMultipartUploadsPaginator(
            OSSListMultipartUploadsRequest(bucketName: bucketName, prefix: prefix))
        {
            for upload in page.uploads where !live.contains(upload.uploadId) {
                guard OSSRecordDirectory.isOlder(upload.initiated, than: olderThan, now: now) else { continue }
                orphans.append(
                    OSSOrphanedUpload(
                        bucketName: bucketName, objectKey: upload.objectKey, uploadId: upload.uploadId,
                        initiated: upload.initiated))
            }
        }
        return orphans
    }

    /// Finds the orphaned uploads (see ``findOrphanedUploads(bucketName:prefix:olderThan:recordDirectoryPath:)``)
    /// and aborts each one, so their parts stop taking space. One failed abort does not stop the others; it is
    /// reported in ``OSSOrphanAbortReport/failures``. Cancellation stops between aborts.
    public func abortOrphanedUploads(
        bucketName: String, prefix: String? = nil, olderThan: Duration, recordDirectoryPath: String
    ) async throws -> OSSOrphanAbortReport {
        let orphans = try await findOrphanedUploads(
            bucketName: bucketName, prefix: prefix, olderThan: olderThan, recordDirectoryPath: recordDirectoryPath)
        var report = OSSOrphanAbortReport(aborted: [], failures: [])
        for orphan in orphans {
            if Task.isCancelled { throw OSSClientError.cancelled() }
            do {
                _ = try await abortMultipartUpload(
                    OSSAbortMultipartUploadRequest(
                        bucketName: orphan.bucketName, objectKey: orphan.objectKey, uploadId: orphan.uploadId))
                report.aborted.append(orphan)
            } catch let error as OSSServerError where error.code == "NoSuchUpload" {
                report.aborted.append(orphan)
            } catch let error as OSSClientError where error.code == .taskCancelled {
                throw error
            } catch {
                report.failures.append(.init(upload: orphan, error: error))
            }
        }
        return report
    }

    /// Cleans a record directory: removes records that can never be resumed (unreadable, corrupt, of an unknown
    /// version, of the wrong kind for their name, download records whose temporary file is gone), half-written
    /// record temporaries and lock files left without a record; and, in `temporaryFileDirectories`, download
    /// temporary files (`<destination>.osstmp-<id>`) that no download record refers to.
    ///
    /// Only files at least `olderThan` old (by modification time) are touched, and never a record a running
    /// transfer holds the lock of, in this process or another. Valid records are kept: to drop a transfer and
    /// its server-side upload, use ``OSSTransferManager/terminate(_:)``.
    public func sweepStaleRecords(
        recordDirectoryPath: String, olderThan: Duration, temporaryFileDirectories: [String] = []
    ) throws -> OSSRecordSweepReport {
        try OSSRecordSweeper(
            directory: OSSRecordDirectory(path: recordDirectoryPath), olderThan: olderThan,
            temporaryFileDirectories: temporaryFileDirectories
        ).sweep()
    }

    /// The upload ids of the readable upload records of `bucketName` in the directory.
    static func liveUploadIds(bucketName: String, recordDirectoryPath: String) throws -> Set<String> {
        var live = Set<String>()
        let directory = OSSRecordDirectory(path: recordDirectoryPath)
        for name in try directory.fileNames() where OSSRecordDirectory.kind(ofRecordName: name) == .upload {
            // As stored: the record of a transfer with a base directory (relative paths) names its upload too.
            if let record = try? directory.store.loadStored(OSSUploadRecord.self, name: name), record.bucket == bucketName {
                live.insert(record.uploadId)
            }
        }
        return live
    }
}
