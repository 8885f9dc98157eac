#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ListParts: the parts uploaded so far, in part-number order, one page at a time.
public struct OSSListPartsRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    /// Parts per page, at most 1000.
    public var maxParts: Int?
    /// Lists parts with numbers greater than this.
    public var partNumberMarker: Int?

    public init(bucketName: String, objectKey: String, uploadId: String, maxParts: Int? = nil, partNumberMarker: Int? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.maxParts = maxParts
        self.partNumberMarker = partNumberMarker
    }
}

/// One uploaded part.
public struct OSSPartInfo: Sendable, Hashable {
    public var partNumber: Int
    /// Quoted, as sent.
    public var eTag: String
    public var size: Int64
    public var lastModified: Date?
    /// `<HashCrc64ecma>`, when the server sends it.
    public var crc64: UInt64?

    public init(partNumber: Int, eTag: String, size: Int64 = 0, lastModified: Date? = nil, crc64: UInt64? = nil) {
        self.partNumber = partNumber
        self.eTag = eTag
        self.size = size
        self.lastModified = lastModified
        self.crc64 = crc64
    }
}

/// One page of ListParts.
public struct OSSListPartsResult: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    public var partNumberMarker: Int
    public var nextPartNumberMarker: Int?
    public var maxParts: Int?
    public var isTruncated: Bool
    public var parts: [OSSPartInfo]
    public var requestId: String
}
