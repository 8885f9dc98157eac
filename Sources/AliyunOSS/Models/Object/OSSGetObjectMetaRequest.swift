#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// GetObjectMeta (`HEAD /key?objectMeta`): the light metadata of an object (ETag, size, Last-Modified).
public struct OSSGetObjectMetaRequest: Sendable {
    public var bucketName: String
    public var objectKey: String

    public init(bucketName: String, objectKey: String) {
        self.bucketName = bucketName
        self.objectKey = objectKey
    }
}

/// The result of GetObjectMeta.
public struct OSSGetObjectMetaResult: Sendable {
    public var contentLength: Int64
    public var eTag: String?
    public var lastModified: Date?
    public var crc64: UInt64?
    public var requestId: String
    public var headers: [String: String]
}
