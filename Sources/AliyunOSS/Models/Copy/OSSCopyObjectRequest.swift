#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// Whether a copy keeps the source's metadata (`COPY`) or takes the request's (`REPLACE`):
/// `x-oss-metadata-directive`.
public enum OSSMetadataDirective: String, Sendable {
    case copy = "COPY"
    case replace = "REPLACE"
}

/// The `x-oss-copy-source-if-*` conditions of a copy. If-Match / If-Unmodified-Since failing is 412
/// PreconditionFailed; If-None-Match / If-Modified-Since failing is 304 (OSS copies nothing either way).
public struct OSSCopySourceConditions: Sendable {
    public var ifMatch: String?
    public var ifNoneMatch: String?
    public var ifModifiedSince: Date?
    public var ifUnmodifiedSince: Date?

    public init(
        ifMatch: String? = nil, ifNoneMatch: String? = nil, ifModifiedSince: Date? = nil, ifUnmodifiedSince: Date? = nil
    ) {
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.ifUnmodifiedSince = ifUnmodifiedSince
    }
}

/// CopyObject: copies an object (up to 1 GB; use ``OSSClient/copyLargeObject(_:)`` beyond) on the server side,
/// within a bucket or from another one.
public struct OSSCopyObjectRequest: Sendable {
    public var sourceBucketName: String
    public var sourceObjectKey: String
    /// The version of the source to copy (`x-oss-copy-source: /bucket/key?versionId=…`); `nil` is the current one.
    public var sourceVersionId: String?
    public var bucketName: String
    public var objectKey: String
    /// `nil` chooses `REPLACE` when `contentType`, user metadata or a standard object header (`Cache-Control`, ...)
    /// is given, else `COPY` (an `x-oss-object-acl` or `x-oss-storage-class` entry alone keeps the source's metadata).
    public var metadataDirective: OSSMetadataDirective?
    /// The copy's `Content-Type` (with `REPLACE`).
    public var contentType: String?
    /// The copy's metadata, the iOS `objectMeta`: user metadata with or without the `x-oss-meta-` prefix, and
    /// standard headers (`Content-Language`, `x-oss-object-acl`, `x-oss-storage-class`, ...) sent as themselves.
    public var metadata: [String: String]
    public var conditions: OSSCopySourceConditions
    /// Other headers (`x-oss-object-acl`, `x-oss-storage-class`, `x-oss-forbid-overwrite`, `x-oss-tagging`, ...).
    public var headers: [String: String]

    public init(
        sourceBucketName: String, sourceObjectKey: String, sourceVersionId: String? = nil, bucketName: String,
        objectKey: String, metadataDirective: OSSMetadataDirective? = nil, contentType: String? = nil,
        metadata: [String: String] = [:], conditions: OSSCopySourceConditions = .init(), headers: [String: String] = [:]
    ) {
        self.sourceBucketName = sourceBucketName
        self.sourceObjectKey = sourceObjectKey
        self.sourceVersionId = sourceVersionId
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.metadataDirective = metadataDirective
        self.contentType = contentType
        self.metadata = metadata
        self.conditions = conditions
        self.headers = headers
    }
}

/// The result of CopyObject.
public struct OSSCopyObjectResult: Sendable {
    /// The copy's ETag, quoted as sent.
    public var eTag: String?
    public var lastModified: Date?
    /// The copy's CRC-64, when the server reports it.
    public var crc64: UInt64?
    /// `x-oss-version-id`: the copy's version (versioned destination bucket).
    public var versionId: String?
    /// `x-oss-copy-source-version-id`: the source version that was copied.
    public var sourceVersionId: String?
    public var requestId: String
    public var headers: [String: String]
}
