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
