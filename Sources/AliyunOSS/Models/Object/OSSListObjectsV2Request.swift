#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ListObjectsV2 (`GET /?list-type=2`): one page of a bucket's objects. Keys are requested URL-encoded and
/// decoded, so any key survives the XML round trip.
public struct OSSListObjectsV2Request: Sendable {
    public var bucketName: String
    public var prefix: String?
    public var delimiter: String?
    public var startAfter: String?
    public var continuationToken: String?
    /// At most 1000.
    public var maxKeys: Int?
    public var fetchOwner: Bool

    public init(
        bucketName: String, prefix: String? = nil, delimiter: String? = nil, startAfter: String? = nil,
        continuationToken: String? = nil, maxKeys: Int? = nil, fetchOwner: Bool = false
    ) {
        self.bucketName = bucketName
        self.prefix = prefix
        self.delimiter = delimiter
        self.startAfter = startAfter
        self.continuationToken = continuationToken
        self.maxKeys = maxKeys
        self.fetchOwner = fetchOwner
    }
}

/// One object in a listing.
public struct OSSObjectSummary: Sendable, Hashable {
    public var objectKey: String
    public var lastModified: Date?
    /// Quoted, as sent.
    public var eTag: String?
    public var size: Int64
    public var storageClass: String?
    public var objectType: String?
}

/// One page of ListObjectsV2.
public struct OSSListObjectsV2Result: Sendable {
    public var bucketName: String
    public var prefix: String?
    public var delimiter: String?
    public var startAfter: String?
    public var maxKeys: Int?
    public var keyCount: Int?
    public var isTruncated: Bool
    public var continuationToken: String?
    public var nextContinuationToken: String?
    public var contents: [OSSObjectSummary]
    public var commonPrefixes: [String]
    public var requestId: String
}
