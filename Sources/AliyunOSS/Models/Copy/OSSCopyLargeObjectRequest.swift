#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// A server-side copy of an object of any size: UploadPartCopy of `partSize` ranges, `threadNum` at a time,
/// then CompleteMultipartUpload. Objects no larger than `partSize` are copied with one CopyObject.
public struct OSSCopyLargeObjectRequest: Sendable {
    /// The smallest part size OSS accepts for every part but the last (100 KiB).
    public static let minimumPartSize: Int64 = 102_400

    public var sourceBucketName: String
    public var sourceObjectKey: String
    /// The version of the source to copy; `nil` is the current one (pinned by its ETag for the whole copy).
    public var sourceVersionId: String?
    public var bucketName: String
    public var objectKey: String
    /// Bytes per part, at least ``minimumPartSize``. Default 8 MiB.
    public var partSize: Int64
    /// Parts copied concurrently. Default 4.
    public var threadNum: Int
    /// The copy's `Content-Type`; `nil` keeps the source's.
    public var contentType: String?
    /// The copy's user metadata; `nil` keeps the source's.
    public var metadata: [String: String]?
    /// Headers for InitiateMultipartUpload (`x-oss-storage-class`, `x-oss-object-acl`, ...).
    public var headers: [String: String]

    public init(
        sourceBucketName: String, sourceObjectKey: String, sourceVersionId: String? = nil, bucketName: String,
        objectKey: String, partSize: Int64 = 8 << 20, threadNum: Int = 4, contentType: String? = nil,
        metadata: [String: String]? = nil, headers: [String: String] = [:]
    ) {
        self.sourceBucketName = sourceBucketName
        self.sourceObjectKey = sourceObjectKey
        self.sourceVersionId = sourceVersionId
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.partSize = partSize
        self.threadNum = threadNum
        self.contentType = contentType
        self.metadata = metadata
        self.headers = headers
    }
}

/// The result of ``OSSClient/copyLargeObject(_:)``.
public struct OSSCopyLargeObjectResult: Sendable {
    public var eTag: String?
    /// The copy's CRC-64 (checked against the source's when both are known and `crcCheckEnabled`).
    public var crc64: UInt64?
    /// The number of parts (0 when a single CopyObject sufficed).
    public var partCount: Int
    /// The copy's version (versioned destination bucket).
    public var versionId: String?
    /// The source version that was copied (versioned source bucket).
    public var sourceVersionId: String?
    public var requestId: String
}
