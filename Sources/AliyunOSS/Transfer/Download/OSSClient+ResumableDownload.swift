#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

extension OSSClient {
    /// Downloads an object (or a range of it) into a file: HEAD, then parallel ranged GETs pinned to the
    /// object's ETag with `If-Match`, streamed into a temporary file beside the destination, CRC-64 checked, and
    /// renamed over the destination atomically.
    ///
    /// With `recordDirectoryPath` set, progress survives cancellation, network failures and process death: the
    /// next call with the same bucket, key, range and destination fetches only the missing parts. A replaced
    /// object is never stitched into the file: it is detected (HEAD differs from the record, or a GET answers
    /// 412) and handled per ``OSSResumableDownloadRequest/objectChangedPolicy``.
    ///
    /// - Throws: ``OSSClientError`` (`taskCancelled` after ``OSSResumableDownloadRequest/cancel()`` or Task
    ///   cancellation; `taskPaused` after ``OSSResumableDownloadRequest/pause()``, with a
    ///   ``OSSClientError/resumeToken``; `invalidCRC`; `objectChanged`; `fileCantWrite` when the temporary file or the destination
    ///   cannot be written; `transferInUse`, at once, when another process or request is running the same
    ///   download (it holds the record's lock);
    ///   `invalidArgument`; `networkError` after retries) or ``OSSServerError`` (e.g. 404 `NoSuchKey`).
    public func resumableDownload(_ request: OSSResumableDownloadRequest) async throws -> OSSResumableDownloadResult {
        try await instrumentedTransfer(
            .download, bucket: request.bucketName, key: request.objectKey, summary: OSSTransferSummary.init
        ) {
            try await request.cancellation.run { [self] in
                let transfer = try OSSDownloadRun(client: self, request: request)
                return try await scheduler.withTransferSlot(priority: request.priority, proceedsWhenCancelled: true) {
                    try await transfer.run()
                }
            }
        }
    }

    /// Resumes a download from a token (from ``OSSClientError/resumeToken`` of a paused download, or
    /// ``OSSTransferManager/resumeToken(for:)``), typically stored by the app and decoded again.
    ///
    /// The token must belong to `request`: same bucket, key, destination, range and CRC mode (the part size is
    /// the token's). Its record then replaces the one in ``OSSResumableDownloadRequest/recordDirectoryPath`` (or
    /// is used in memory when there is none) and the download resumes as from a record: a replaced object is
    /// handled per ``OSSResumableDownloadRequest/objectChangedPolicy``, a missing or resized temporary file
    /// starts over.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when the token belongs to another transfer (naming the field
    ///   that differs) or is an upload token; otherwise what ``resumableDownload(_:)`` throws.
    public func resumableDownload(
        _ request: OSSResumableDownloadRequest, resumingFrom token: OSSResumeToken
    ) async throws -> OSSResumableDownloadResult {
        try await instrumentedTransfer(
            .download, bucket: request.bucketName, key: request.objectKey, summary: OSSTransferSummary.init
        ) {
            try await request.cancellation.run { [self] in
                let transfer = try OSSDownloadRun(client: self, request: request, token: token)
                return try await scheduler.withTransferSlot(priority: request.priority, proceedsWhenCancelled: true) {
                    try await transfer.run()
                }
            }
        }
    }
}
