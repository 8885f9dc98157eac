import Foundation

/// A multipart upload on the server that no checkpoint record in a record directory refers to: nothing will
/// ever resume or complete it, yet its parts are stored (and billed) until it is aborted.
public struct OSSOrphanedUpload: Sendable, Hashable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    /// When the server says the upload was initiated (`nil` when the listing did not say).
    public var initiated: Date?

    public init(bucketName: String, objectKey: String, uploadId: String, initiated: Date?) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.initiated = initiated
    }
}

/// What ``OSSClient/abortOrphanedUploads(bucketName:prefix:olderThan:recordDirectoryPath:)`` did.
public struct OSSOrphanAbortReport: Sendable {
    /// An orphan that could not be aborted, and why.
    public struct Failure: Sendable {
        public var upload: OSSOrphanedUpload
        /// The error the abort threw (an ``OSSClientError`` or ``OSSServerError``).
        public var error: any Error
    }

    /// Orphans aborted (including ones the server no longer knew: `NoSuchUpload` means already gone).
    public var aborted: [OSSOrphanedUpload]
    /// Orphans whose abort failed; they are still on the server.
    public var failures: [Failure]
}

/// What ``OSSClient/sweepStaleRecords(recordDirectoryPath:olderThan:temporaryFileDirectories:)`` removed.
public struct OSSRecordSweepReport: Sendable, Hashable {
    /// Records removed (absolute paths): unreadable, corrupt, of an unknown version or kind, or download records
    /// whose temporary file is gone.
    public var removedRecords: [String]
    /// Files removed (absolute paths): half-written record temporaries, lock files without a record, and download
    /// temporary files (`*.osstmp-*`) that no download record refers to.
    public var removedTemporaryFiles: [String]
    /// Records left in place because they are valid or in use by a running transfer.
    public var keptRecords: [String]
}
