import OSSResumable

extension OSSClientErrorCode {
    /// The transfer was stopped by `pause()` (``OSSResumableUploadRequest/pause()``,
    /// ``OSSResumableDownloadRequest/pause()``, ``OSSTransferManager/pause(_:)``): unlike `taskCancelled`, the
    /// multipart upload, the temporary file and the record were all kept. The error's
    /// ``OSSClientError/resumeToken`` describes what was kept.
    public static let taskPaused = Self(rawValue: "TaskPaused")
}

extension OSSClientError {
    /// For a `taskPaused` error: the token of the state the pause kept, to store and give back to
    /// ``OSSClient/resumableUpload(_:resumingFrom:)`` / ``OSSClient/resumableDownload(_:resumingFrom:)`` or
    /// ``OSSTransferManager/restore(_:)``. `nil` for other errors, and when nothing could be kept yet (paused
    /// before the multipart upload was initiated or the object was planned).
    public var resumeToken: OSSResumeToken? {
        (underlying as? OSSTransferPause)?.token
    }

    /// The `taskPaused` error of a transfer, carrying `token`.
    static func paused(_ message: String, token: OSSResumeToken?) -> OSSClientError {
        OSSClientError(.taskPaused, message, underlying: OSSTransferPause(token: token))
    }
}

/// The `underlying` error of a `taskPaused` error: what the pause kept.
struct OSSTransferPause: Error, Sendable, CustomStringConvertible {
    let token: OSSResumeToken?

    var description: String {
        guard let token else { return "paused before anything resumable existed" }
        return "paused with \(token.bytesDone) of \(token.totalBytes) bytes of oss://\(token.bucketName)/\(token.objectKey) kept"
    }
}
