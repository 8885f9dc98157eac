#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// GetObjectMeta (`HEAD /key?objectMeta`): the light metadata of an object (ETag, size, Last-Modified).
public struct OSSGetObjectMetaRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The version to describe; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.versionId = versionId
    }
}

/// The result of GetObjectMeta.
public struct OSSGetObjectMetaResult: Sendable {
    public var contentLength: Int64
    public var eTag: String?
    public var lastModified: Date?
    public var crc64: UInt64?
    /// `x-oss-version-id` (versioned buckets).
    public var versionId: String?
    public var requestId: String
    public var headers: [String: String]
}
