#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// PutSymlink (`PUT /key?symlink`): an object that points to another key of the same bucket. GET and HEAD of
/// it read the target.
public struct OSSPutSymlinkRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var targetObjectName: String
    /// Metadata of the symlink itself, read like the iOS `objectMeta` (``OSSPutObjectRequest/metadata``).
    public var metadata: [String: String]
    public var headers: [String: String]

    public init(
        bucketName: String, objectKey: String, targetObjectName: String, metadata: [String: String] = [:],
        headers: [String: String] = [:]
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.targetObjectName = targetObjectName
        self.metadata = metadata
        self.headers = headers
    }
}

/// The result of PutSymlink.
public struct OSSPutSymlinkResult: Sendable {
    public var eTag: String?
    /// `x-oss-version-id`: the symlink's version (versioned buckets).
    public var versionId: String?
    public var requestId: String
}

/// GetSymlink (`GET /key?symlink`).
public struct OSSGetSymlinkRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The symlink version to read; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.versionId = versionId
    }
}

/// The result of GetSymlink.
public struct OSSGetSymlinkResult: Sendable {
    public var targetObjectName: String
    public var eTag: String?
    public var lastModified: Date?
    /// `x-oss-version-id`: the symlink version read (versioned buckets).
    public var versionId: String?
    public var requestId: String
}
