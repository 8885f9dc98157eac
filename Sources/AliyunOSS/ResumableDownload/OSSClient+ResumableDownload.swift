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
    ///   cancellation; `invalidCRC`; `objectChanged`; `fileCantWrite` when the temporary file or the destination
    ///   cannot be written; `cannotResumeDownload` when another process is downloading with the same record;
    ///   `invalidArgument`; `networkError` after retries) or ``OSSServerError`` (e.g. 404 `NoSuchKey`).
    public func resumableDownload(_ request: OSSResumableDownloadRequest) async throws -> OSSResumableDownloadResult {
        try await request.cancellation.run { [self] in
            let engine = try OSSResumableDownloadEngine(client: self, request: request)
            return try await engine.run()
        }
    }
}
