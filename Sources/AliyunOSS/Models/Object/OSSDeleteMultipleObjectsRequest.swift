/// DeleteMultipleObjects (`POST /?delete`): deletes up to 1000 objects in one request. Keys are sent and
/// returned URL-encoded (`encoding-type=url`), so any key works. For more keys use
/// ``OSSClient/deleteObjects(_:inBucket:)``.
public struct OSSDeleteMultipleObjectsRequest: Sendable {
    /// The most keys one request may name.
    public static let maximumKeys = 1000

    public var bucketName: String
    public var keys: [String]
    /// Quiet mode: the reply lists no deleted keys.
    public var quiet: Bool

    public init(bucketName: String, keys: [String], quiet: Bool = false) {
        self.bucketName = bucketName
        self.keys = keys
        self.quiet = quiet
    }
}

/// The result of DeleteMultipleObjects.
public struct OSSDeleteMultipleObjectsResult: Sendable {
    /// The deleted keys (empty in quiet mode). Missing keys count as deleted, as on OSS.
    public var deletedObjects: [String]
    public var requestId: String
}
