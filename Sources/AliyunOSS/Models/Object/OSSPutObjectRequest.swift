#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// PutObject: uploads an object in one request.
public struct OSSPutObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The bytes to upload.
    public var source: OSSUploadSource
    /// `Content-Type`; when nil (and no `Content-Type` in ``headers``) it is guessed from the file's extension, then
    /// the object key's (``OSSMimeType``), else `application/octet-stream`.
    public var contentType: String?
    /// Whether to compute and send `Content-MD5` (for a file this costs one extra read pass).
    public var sendContentMD5: Bool
    /// Object metadata, the iOS `objectMeta`: user metadata with or without the `x-oss-meta-` prefix, and standard
    /// headers (`Content-Language`, `Cache-Control`, `x-oss-object-acl`, `x-oss-storage-class`, ...) sent as
    /// themselves.
    public var metadata: [String: String]
    /// Any other headers (`Cache-Control`, `x-oss-object-acl`, `x-oss-storage-class`, ...).
    public var headers: [String: String]
    /// Upload progress.
    public var uploadProgress: OSSProgressHandler?
    /// Whether CRC-64 is checked for this request (the iOS per-request `crcFlag`); `nil` follows the client's
    /// ``OSSClientConfiguration/crcCheckEnabled``.
    public var crcFlag: Bool?
    /// Whether the request is signed (the iOS `isAuthenticationRequired`); `false` writes to a public-read-write
    /// bucket anonymously (any other is 403 `AccessDenied`). Default true.
    public var isAuthenticationRequired = true
    /// An upload callback: OSS calls it after storing the object and returns its answer in
    /// ``OSSPutObjectResult/serverCallbackBody``. A failed callback throws ``OSSServerError`` `CallbackFailed`
    /// (status 203; the object is stored, see ``OSSServerError/isCallbackFailed``).
    public var callback: OSSCallback?
    /// Upload callback parameters, the iOS `callbackParam` (`callbackUrl`, `callbackBody`, ...), sent as
    /// `x-oss-callback` (the SDK does the Base64 JSON). ``callback`` takes precedence.
    public var callbackParam: [String: String]?
    /// Callback variables, the iOS `callbackVar` (`x:name` → value), sent as `x-oss-callback-var`.
    public var callbackVar: [String: String]?

    public init(
        bucketName: String, objectKey: String, source: OSSUploadSource, contentType: String? = nil,
        sendContentMD5: Bool = false, metadata: [String: String] = [:], headers: [String: String] = [:],
        uploadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.source = source
        self.contentType = contentType
        self.sendContentMD5 = sendContentMD5
        self.metadata = metadata
        self.headers = headers
        self.uploadProgress = uploadProgress
    }

    /// Uploads `data`.
    public init(bucketName: String, objectKey: String, data: Data) {
        self.init(bucketName: bucketName, objectKey: objectKey, source: .data(data))
    }

    /// Uploads the file at `fileURL`, streamed.
    public init(bucketName: String, objectKey: String, fileURL: URL) {
        self.init(bucketName: bucketName, objectKey: objectKey, source: .file(fileURL))
    }
}

/// The result of PutObject.
public struct OSSPutObjectResult: Sendable {
    /// The object's ETag, quoted as OSS sends it.
    public var eTag: String?
    /// The object's CRC-64 as reported by the server (already checked against the local one when enabled).
    public var crc64: UInt64?
    public var versionId: String?
    public var requestId: String
    /// The callback server's answer, when an `x-oss-callback` header was sent.
    public var serverCallbackBody: Data?
    /// The response headers (no authentication material).
    public var headers: [String: String]
}
