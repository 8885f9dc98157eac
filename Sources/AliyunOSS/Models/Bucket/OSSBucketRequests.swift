#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// PutBucket: creates a bucket.
public struct OSSPutBucketRequest: Sendable {
    public var bucketName: String
    /// `x-oss-acl`: `private`, `public-read`, `public-read-write`.
    public var acl: String?
    /// `<StorageClass>`: `Standard`, `IA`, `Archive`, ...
    public var storageClass: String?

    public init(bucketName: String, acl: String? = nil, storageClass: String? = nil) {
        self.bucketName = bucketName
        self.acl = acl
        self.storageClass = storageClass
    }
}

/// DeleteBucket: deletes an empty bucket.
public struct OSSDeleteBucketRequest: Sendable {
    public var bucketName: String

    public init(bucketName: String) {
        self.bucketName = bucketName
    }
}

/// The result of PutBucket or DeleteBucket.
public struct OSSBucketResult: Sendable {
    public var statusCode: Int
    public var requestId: String
}

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
