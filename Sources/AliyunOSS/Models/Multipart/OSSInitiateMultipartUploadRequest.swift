/// InitiateMultipartUpload: starts a multipart upload and returns its upload id.
public struct OSSInitiateMultipartUploadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// `Content-Type` of the final object; when nil it is guessed from the object key's extension
    /// (``OSSMimeType``), else `application/octet-stream`.
    public var contentType: String?
    /// Object metadata, the iOS `objectMeta`: user metadata given with or without the `x-oss-meta-` prefix, and
    /// standard headers (`Content-Language`, `Cache-Control`, `x-oss-storage-class`, ...) sent as themselves.
    public var metadata: [String: String]
    /// Other headers (`x-oss-storage-class`, `x-oss-forbid-overwrite`, `Cache-Control`, ...).
    public var headers: [String: String]
    /// Sends `?sequential` (the iOS `sequential`): the parts must then be uploaded in ascending order, and OSS
    /// gives the completed object the `Content-MD5` of its whole content.
    public var sequential: Bool

    public init(
        bucketName: String, objectKey: String, contentType: String? = nil, metadata: [String: String] = [:],
        headers: [String: String] = [:], sequential: Bool = false
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.contentType = contentType
        self.metadata = metadata
        self.headers = headers
        self.sequential = sequential
    }
}

/// The result of InitiateMultipartUpload.
public struct OSSInitiateMultipartUploadResult: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    public var requestId: String
}
