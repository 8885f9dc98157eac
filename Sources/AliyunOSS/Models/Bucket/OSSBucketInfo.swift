#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// GetBucketInfo (`GET /?bucketInfo`).
public struct OSSGetBucketInfoRequest: Sendable {
    public var bucketName: String

    public init(bucketName: String) { self.bucketName = bucketName }
}

/// A bucket's description.
public struct OSSGetBucketInfoResult: Sendable {
    public var bucketName: String
    public var creationDate: Date?
    /// The bucket's public endpoint (host, no scheme), e.g. `oss-cn-hangzhou.aliyuncs.com`.
    public var extranetEndpoint: String?
    /// The bucket's endpoint inside the region's network.
    public var intranetEndpoint: String?
    /// e.g. `oss-cn-hangzhou`.
    public var location: String?
    /// e.g. `cn-hangzhou`.
    public var region: String?
    public var storageClass: String?
    public var ownerId: String?
    public var ownerDisplayName: String?
    /// `private`, `public-read` or `public-read-write`.
    public var acl: String?
    /// `Enabled` or `Suspended`; `nil` when versioning was never enabled.
    public var versioning: OSSVersioningStatus?
    public var requestId: String
}

/// GetBucketLocation (`GET /?location`).
public struct OSSGetBucketLocationRequest: Sendable {
    public var bucketName: String

    public init(bucketName: String) { self.bucketName = bucketName }
}

/// Where a bucket lives.
public struct OSSGetBucketLocationResult: Sendable {
    /// e.g. `oss-cn-hangzhou`.
    public var location: String
    public var requestId: String
}
