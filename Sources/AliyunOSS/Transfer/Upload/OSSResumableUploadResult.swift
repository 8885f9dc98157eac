#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The result of ``OSSClient/resumableUpload(_:)``.
public struct OSSResumableUploadResult: Sendable {
    /// The object's ETag (opaque for multipart objects).
    public var eTag: String?
    /// The object's CRC-64 as the server reports it (checked against the parts' combined CRC in CRC mode).
    public var crc64: UInt64?
    /// The request id of CompleteMultipartUpload.
    public var requestId: String
    /// The callback server's answer, when ``OSSResumableUploadRequest/callbackParam`` was set.
    public var callbackBody: Data?
    /// The multipart upload id that became the object.
    public var uploadId: String
    /// The bytes that were already on the server when the upload resumed (0 for a fresh upload).
    public var resumedBytes: Int64
    /// The part size used (possibly grown, or taken from the record).
    public var partSize: Int64
    /// The object's size.
    public var totalBytes: Int64
}
