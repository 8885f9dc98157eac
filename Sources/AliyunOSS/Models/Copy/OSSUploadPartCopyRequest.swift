#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// UploadPartCopy: one part of a multipart upload copied from (a byte range of) an existing object.
public struct OSSUploadPartCopyRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    /// 1...10000.
    public var partNumber: Int
    public var sourceBucketName: String
    public var sourceObjectKey: String
    /// The version of the source to copy from; `nil` is the current one.
    public var sourceVersionId: String?
    /// The inclusive byte range of the source to copy (`x-oss-copy-source-range`); `nil` copies all of it.
    public var sourceRange: ClosedRange<Int64>?
    public var conditions: OSSCopySourceConditions
    public var headers: [String: String]

    public init(
        bucketName: String, objectKey: String, uploadId: String, partNumber: Int, sourceBucketName: String,
        sourceObjectKey: String, sourceVersionId: String? = nil, sourceRange: ClosedRange<Int64>? = nil,
        conditions: OSSCopySourceConditions = .init(), headers: [String: String] = [:]
    ) {
        self.sourceVersionId = sourceVersionId
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.partNumber = partNumber
        self.sourceBucketName = sourceBucketName
        self.sourceObjectKey = sourceObjectKey
        self.sourceRange = sourceRange
        self.conditions = conditions
        self.headers = headers
    }
}

/// The result of UploadPartCopy.
public struct OSSUploadPartCopyResult: Sendable {
    public var partNumber: Int
    /// The part's ETag, quoted as sent. Pass it to CompleteMultipartUpload.
    public var eTag: String
    public var lastModified: Date?
    /// The part's CRC-64, when the server reports it.
    public var crc64: UInt64?
    /// `x-oss-copy-source-version-id`: the source version the part was copied from.
    public var sourceVersionId: String?
    public var requestId: String
}
