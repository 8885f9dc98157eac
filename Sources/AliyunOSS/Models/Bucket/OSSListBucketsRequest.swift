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

    public init(prefix: String? = nil, marker: String? = nil, maxKeys: Int? = nil) {
        self.prefix = prefix
        self.marker = marker
        self.maxKeys = maxKeys
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
