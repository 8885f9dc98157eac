#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A multipart upload whose parts the system carries (``OSSBackgroundTransferService/startUpload(_:)``).
public struct OSSBackgroundUploadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The local file. Each part's bytes are copied to a file of their own before their task is submitted (the
    /// original is sent as it is when the file is one part), so later changes to the file do not reach the object.
    public var uploadingFileURL: URL
    /// The part size (at least 100 KB for a file larger than that, else `invalidArgument`, as in iOS; doubled while
    /// the file needs more than 10,000 parts). Default 4 MiB.
    public var partSize: Int64
    /// The most part tasks handed to the system at once (their copies use at most this many parts of disk);
    /// the next ones are submitted as completions are reconciled. Default 16.
    public var maximumQueuedParts: Int
    /// `Content-Type` of the object; guessed from the file's extension, then the key's, when nil.
    public var contentType: String?

    public init(
        bucketName: String, objectKey: String, uploadingFileURL: URL, partSize: Int64 = 4 << 20, maximumQueuedParts: Int = 16,
        contentType: String? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadingFileURL = uploadingFileURL
        self.partSize = partSize
        self.maximumQueuedParts = maximumQueuedParts
        self.contentType = contentType
    }
}
