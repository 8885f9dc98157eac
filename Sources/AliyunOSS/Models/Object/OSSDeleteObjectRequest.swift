/// DeleteObject. On a versioned bucket a delete without `versionId` adds a delete marker (nothing is removed);
/// with one it removes that version for good.
public struct OSSDeleteObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The version to remove for good; `nil` deletes the current version (a delete marker on a versioned bucket).
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
    /// `x-oss-version-id`: the delete marker's id when one was added, else the version removed.
    public var versionId: String?
    /// `x-oss-delete-marker`: the delete added a delete marker, or removed one.
    public var deleteMarker: Bool
    public var requestId: String
}
