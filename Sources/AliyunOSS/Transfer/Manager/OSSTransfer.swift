/// Whether a transfer sends a local file or fetches an object.
public enum OSSTransferKind: String, Sendable, Hashable, Codable {
    case upload
    case download
}

/// The state of a transfer known to an ``OSSTransferManager`` (the Kii transfer manager's states).
public enum OSSTransferState: String, Sendable, Hashable, Codable {
    /// The record is gone or cannot be read (corrupt, unknown version): nothing can be resumed; terminate it.
    case noEntry
    /// This manager is running the transfer now.
    case ongoing
    /// A readable record that nobody in this manager is running: ``OSSTransferManager/resume(_:)`` continues it.
    case suspended
}

/// One transfer whose checkpoint record is in the manager's record directory.
public struct OSSTransfer: Sendable, Hashable, Identifiable {
    /// The record's file name: stable across restarts, unique per (file, bucket, key, part size, CRC mode) for
    /// uploads and per (bucket, key, range, destination) for downloads.
    public var id: String
    public var kind: OSSTransferKind
    public var state: OSSTransferState
    /// Empty when the record cannot be read (`noEntry`).
    public var bucketName: String
    public var objectKey: String
    /// The local file: the source of an upload, the destination of a download.
    public var filePath: String
    /// The multipart upload id (uploads only).
    public var uploadId: String?
    /// The download's temporary file (downloads only).
    public var temporaryFilePath: String?
    /// The part size recorded for the transfer.
    public var partSize: Int64
    /// Bytes the record confirms: the sizes of the parts the server acknowledged (upload) or written to the
    /// temporary file and checked (download).
    public var bytesDone: Int64
    /// The bytes to transfer in all.
    public var totalBytes: Int64
    /// How many parts are confirmed.
    public var completedParts: Int
    /// Why the record cannot be used (`noEntry` only).
    public var problem: String?
    /// A background transfer (``OSSTransferManager/backgroundService``): the system carries its parts; its id is
    /// its transfer id, `ongoing` means the system holds some of its parts, `suspended` that it holds none
    /// (paused, or waiting for the next attach to submit them).
    public var isBackground: Bool = false
    /// The version a download is pinned to, in a bucket with versioning: it resumes with this version even when
    /// the key has a newer one (downloads only).
    public var versionId: String?
}
