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
    /// Upload callback parameters, the iOS `callbackParam` (`callbackUrl`, `callbackBody`, `callbackBodyType`,
    /// `callbackHost`): the SDK sends them as `x-oss-callback`, Base64 of their JSON.
    public var callbackParam: [String: String]?
    /// Callback variables, the iOS `callbackVar` (`x:name` → value): sent as `x-oss-callback-var`, Base64 JSON.
    public var callbackVar: [String: String]?
    /// Other headers (`x-oss-object-acl`, `x-oss-forbid-overwrite`, ...).
    public var headers: [String: String]
    /// A typed upload callback (takes precedence over ``callbackParam`` and ``callbackVar``). A failed callback
    /// throws ``OSSServerError`` `CallbackFailed` (status 203; the object exists).
    public var typedCallback: OSSCallback?

    public init(
        bucketName: String, objectKey: String, uploadId: String, parts: [OSSPartInfo], completeAll: Bool = false,
        callbackParam: [String: String]? = nil, callbackVar: [String: String]? = nil, headers: [String: String] = [:]
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.parts = parts
        self.completeAll = completeAll
        self.callbackParam = callbackParam
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
