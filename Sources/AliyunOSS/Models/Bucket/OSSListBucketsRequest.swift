#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ListBuckets (GetService).
public struct OSSListBucketsRequest: Sendable {
    public var prefix: String?
    public var marker: String?
    public var maxKeys: Int?
    /// `tag-key`: only buckets with a tag of this key.
    public var tagKey: String?
    /// `tag-value`: with ``tagKey``, only buckets whose tag of that key has this value.
    public var tagValue: String?

    public init(prefix: String? = nil, marker: String? = nil, maxKeys: Int? = nil, tagKey: String? = nil, tagValue: String? = nil) {
        self.prefix = prefix
        self.marker = marker
        self.maxKeys = maxKeys
        self.tagKey = tagKey
        self.tagValue = tagValue
    }
}

/// One bucket in a listing.
public struct OSSBucketSummary: Sendable, Hashable {
    public var name: String
    public var location: String?
    public var creationDate: Date?
    public var storageClass: String?
    public var region: String?
}

/// The result of ListBuckets.
public struct OSSListBucketsResult: Sendable {
    public var buckets: [OSSBucketSummary]
    public var isTruncated: Bool
    public var nextMarker: String?
    public var requestId: String
}
