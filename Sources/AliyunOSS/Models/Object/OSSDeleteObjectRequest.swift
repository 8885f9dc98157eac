/// DeleteObject.
public struct OSSDeleteObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var versionId: String?

    public init(bucketName: String, objectKey: String, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.versionId = versionId
    }
}

/// The result of DeleteObject.
public struct OSSDeleteObjectResult: Sendable {
    public var statusCode: Int
    public var requestId: String
}
