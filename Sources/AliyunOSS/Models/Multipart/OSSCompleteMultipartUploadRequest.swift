#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// CompleteMultipartUpload: assembles the listed parts into the object.
public struct OSSCompleteMultipartUploadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    /// The parts (number and ETag); sent sorted by part number, ETags quoted.
    public var parts: [OSSPartInfo]
    /// Sends `x-oss-complete-all: yes` and no part list: the server uses every uploaded part.
    public var completeAll: Bool
    /// `x-oss-callback` (Base64 JSON, as OSS expects).
    public var callback: String?
    /// `x-oss-callback-var`.
    public var callbackVar: String?
    /// Other headers (`x-oss-object-acl`, `x-oss-forbid-overwrite`, ...).
    public var headers: [String: String]
    /// A typed upload callback (takes precedence over ``callback`` and ``callbackVar``). A failed callback throws
    /// ``OSSServerError`` `CallbackFailed` (status 203; the object exists).
    public var typedCallback: OSSCallback?

    public init(
        bucketName: String, objectKey: String, uploadId: String, parts: [OSSPartInfo], completeAll: Bool = false,
        callback: String? = nil, callbackVar: String? = nil, headers: [String: String] = [:]
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.parts = parts
        self.completeAll = completeAll
        self.callback = callback
        self.callbackVar = callbackVar
        self.headers = headers
    }
}

/// The result of CompleteMultipartUpload.
public struct OSSCompleteMultipartUploadResult: Sendable {
    public var eTag: String?
    /// The whole object's CRC-64 (`x-oss-hash-crc64ecma`).
    public var crc64: UInt64?
    public var location: String?
    public var bucketName: String?
    public var objectKey: String?
    public var versionId: String?
    public var requestId: String
    /// The callback server's answer, when a callback was requested.
    public var serverCallbackBody: Data?
    public var headers: [String: String]
}
