#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A download whose ranges the system carries (``OSSBackgroundTransferService/startDownload(_:)``).
public struct OSSBackgroundDownloadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// Where the object is written once every range is verified (replaced atomically).
    public var downloadToFileURL: URL
    /// The range size (at least 64 KiB). Default 4 MiB.
    public var partSize: Int64
    /// The most range tasks handed to the system at once. Default 16.
    public var maximumQueuedParts: Int

    public init(
        bucketName: String, objectKey: String, downloadToFileURL: URL, partSize: Int64 = 4 << 20, maximumQueuedParts: Int = 16
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.downloadToFileURL = downloadToFileURL
        self.partSize = partSize
        self.maximumQueuedParts = maximumQueuedParts
    }
}
