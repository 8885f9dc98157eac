import OSSResumable

/// A checkpoint record a resumable transfer found but could not use, and what the transfer does about it: said
/// once, before the transfer goes on, through ``OSSResumableUploadRequest/recordNotice`` or
/// ``OSSResumableDownloadRequest/recordNotice`` (and the client's logger, as a warning).
///
/// A record fails its checks when it was torn by a crash on a file system without atomic renames, edited, or
/// damaged on disk; it is never silently replaced. An upload record that still names its multipart upload has that
/// upload aborted, so no upload is left behind on the server (billed for its parts, and found only by
/// ``OSSClient/findOrphanedUploads(bucketName:prefix:olderThan:recordDirectoryPath:)``); a download starts over in the same
/// temporary file.
public struct OSSRecordNotice: Sendable, Hashable, CustomStringConvertible {
    /// The transfer's direction.
    public enum Direction: String, Sendable, Hashable {
        case upload
        case download
    }

    /// The transfer's direction.
    public var direction: Direction
    /// The record's full path.
    public var recordPath: String
    /// What is wrong with it ("record checksum mismatch (torn or edited record)", ...).
    public var problem: String
    /// The multipart upload the damaged record named, aborted before a new upload starts; `nil` when none could be
    /// read from it (it may then still be on the server: `oss ls -m` and ``OSSClient/listMultipartUploads(_:)``
    /// list incomplete uploads).
    public var abortedUploadId: String?

    public init(direction: Direction, recordPath: String, problem: String, abortedUploadId: String? = nil) {
        self.direction = direction
        self.recordPath = recordPath
        self.problem = problem
        self.abortedUploadId = abortedUploadId
    }

    /// One line: the record, what is wrong, what happens next.
    public var description: String {
        let next: String
        switch (direction, abortedUploadId) {
        case (.upload, let id?): next = "aborting its multipart upload \(id) and starting a new upload"
        case (.upload, nil): next = "starting a new upload (oss ls -m lists incomplete uploads it may have named)"
        case (.download, _): next = "starting the download over"
        }
        return "the \(direction.rawValue) record \(recordPath) cannot be used (\(problem)): \(next)"
    }
}
