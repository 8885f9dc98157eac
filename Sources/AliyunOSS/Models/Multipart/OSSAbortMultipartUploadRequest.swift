/// AbortMultipartUpload.
public struct OSSAbortMultipartUploadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String

    public init(bucketName: String, objectKey: String, uploadId: String) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
    }
}

/// The result of AbortMultipartUpload.
public struct OSSAbortMultipartUploadResult: Sendable {
    public var requestId: String
}
