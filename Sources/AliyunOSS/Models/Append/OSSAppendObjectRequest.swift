#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// AppendObject: creates an Appendable object (`appendPosition` 0) or adds bytes at its end.
///
/// The CRC-64 is chained across appends: give the previous append's ``OSSAppendObjectResult/crc64`` (or the
/// object's current `x-oss-hash-crc64ecma`) as `initCRC64`, and the SDK checks the server's whole-object CRC
/// against the combination with the bytes sent (mismatch: `.invalidCRC`). At position 0 the initial CRC is 0.
public struct OSSAppendObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// Where the bytes go: the object's current length (`x-oss-next-append-position` of the previous append).
    public var appendPosition: Int64
    public var source: OSSUploadSource
    /// The CRC-64 of the object's first `appendPosition` bytes; `nil` at a non-zero position skips the check.
    public var initCRC64: UInt64?
    /// `Content-Type` (first append only).
    public var contentType: String?
    /// Object metadata (first append only), the iOS `objectMeta`: user metadata with or without the `x-oss-meta-`
    /// prefix, and standard headers (`Cache-Control`, `x-oss-object-acl`, ...) sent as themselves.
    public var metadata: [String: String]
    public var sendContentMD5: Bool
    public var headers: [String: String]
    public var uploadProgress: OSSProgressHandler?
    /// Whether CRC-64 is checked for this request (the iOS per-request `crcFlag`); `nil` follows the client's
    /// ``OSSClientConfiguration/crcCheckEnabled``.
    public var crcFlag: Bool?

    public init(
        bucketName: String, objectKey: String, appendPosition: Int64, source: OSSUploadSource, initCRC64: UInt64? = nil,
        contentType: String? = nil, metadata: [String: String] = [:], sendContentMD5: Bool = false,
        headers: [String: String] = [:], uploadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.appendPosition = appendPosition
        self.source = source
        self.initCRC64 = initCRC64
        self.contentType = contentType
        self.metadata = metadata
        self.sendContentMD5 = sendContentMD5
        self.headers = headers
        self.uploadProgress = uploadProgress
    }
}

/// The result of AppendObject.
public struct OSSAppendObjectResult: Sendable {
    public var eTag: String?
    /// `x-oss-next-append-position`: the object's length now, the position of the next append.
    public var xOssNextAppendPosition: Int64
    /// The whole object's CRC-64 (pass it as the next append's `initCRC64`).
    public var crc64: UInt64?
    /// `x-oss-version-id` (versioned buckets).
    public var versionId: String?
    public var requestId: String
    public var headers: [String: String]
}
