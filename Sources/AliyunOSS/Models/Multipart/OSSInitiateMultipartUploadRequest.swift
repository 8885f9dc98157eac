/// InitiateMultipartUpload: starts a multipart upload and returns its upload id.
public struct OSSInitiateMultipartUploadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// `Content-Type` of the final object; when nil it is guessed from the object key's extension
    /// (``OSSMimeType``), else `application/octet-stream`.
    public var contentType: String?
    /// User metadata, given with or without the `x-oss-meta-` prefix.
    public var metadata: [String: String]
    /// Other headers (`x-oss-storage-class`, `x-oss-forbid-overwrite`, `Cache-Control`, ...).
    public var headers: [String: String]

    public init(
        bucketName: String, objectKey: String, contentType: String? = nil, metadata: [String: String] = [:],
        headers: [String: String] = [:]
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.contentType = contentType
        self.metadata = metadata
        self.headers = headers
    }
}

/// The result of InitiateMultipartUpload.
public struct OSSInitiateMultipartUploadResult: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    public var requestId: String
}
