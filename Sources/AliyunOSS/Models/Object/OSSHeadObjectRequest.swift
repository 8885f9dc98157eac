#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HeadObject: reads an object's metadata.
public struct OSSHeadObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var versionId: String?
    public var ifMatch: String?
    public var ifNoneMatch: String?
    public var ifModifiedSince: Date?
    public var ifUnmodifiedSince: Date?
    public var headers: [String: String]
    /// Whether the request is signed (the iOS `isAuthenticationRequired`); `false` reads a public object
    /// anonymously (a private one is 403 `AccessDenied`). Default true.
    public var isAuthenticationRequired = true

    public init(
        bucketName: String, objectKey: String, versionId: String? = nil, ifMatch: String? = nil,
        ifNoneMatch: String? = nil, ifModifiedSince: Date? = nil, ifUnmodifiedSince: Date? = nil,
        headers: [String: String] = [:]
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.versionId = versionId
        self.ifMatch = ifMatch
        self.ifNoneMatch = ifNoneMatch
        self.ifModifiedSince = ifModifiedSince
        self.ifUnmodifiedSince = ifUnmodifiedSince
        self.headers = headers
    }
}

/// The result of HeadObject.
public struct OSSHeadObjectResult: Sendable {
    /// `Content-Length`: the object's size.
    public var contentLength: Int64
    /// `ETag`, quoted as sent.
    public var eTag: String?
    public var lastModified: Date?
    /// `x-oss-hash-crc64ecma`.
    public var crc64: UInt64?
    public var contentType: String?
    /// `x-oss-object-type`: `Normal`, `Multipart`, `Appendable`, `Symlink`.
    public var objectType: String?
    public var storageClass: String?
    public var versionId: String?
    /// User metadata (`x-oss-meta-*`), names lower-cased without the prefix.
    public var metadata: [String: String]
    public var requestId: String
    public var headers: [String: String]
}
