/// DeleteMultipleObjects (`POST /?delete`): deletes up to 1000 objects (or object versions) in one request. Keys
/// are returned URL-encoded (`encoding-type=url`) and decoded, so any key works. For more keys use
/// ``OSSClient/deleteObjects(_:inBucket:)``.
public struct OSSDeleteMultipleObjectsRequest: Sendable {
    /// The most keys one request may name.
    public static let maximumKeys = 1000

    public var bucketName: String
    /// The objects to delete, each with the version to remove for good or none (on a versioned bucket: add a
    /// delete marker).
    public var objects: [OSSObjectIdentifier]
    /// Quiet mode: the reply lists no deleted keys.
    public var quiet: Bool

    /// The keys of ``objects``; setting them deletes the current version of each.
    public var keys: [String] {
        get { objects.map(\.objectKey) }
        set { objects = newValue.map { OSSObjectIdentifier(objectKey: $0) } }
    }

    public init(bucketName: String, keys: [String], quiet: Bool = false) {
        self.init(bucketName: bucketName, objects: keys.map { OSSObjectIdentifier(objectKey: $0) }, quiet: quiet)
    }

    public init(bucketName: String, objects: [OSSObjectIdentifier], quiet: Bool = false) {
        self.bucketName = bucketName
        self.objects = objects
        self.quiet = quiet
    }
}

/// An object, or one version of it, to delete.
public struct OSSObjectIdentifier: Sendable, Hashable {
    public var objectKey: String
    /// The version to remove for good; `nil` deletes the current version (a delete marker on a versioned bucket).
    public var versionId: String?

    public init(objectKey: String, versionId: String? = nil) {
        self.objectKey = objectKey
        self.versionId = versionId
    }
}

/// One entry of DeleteMultipleObjects' reply (`<Deleted>`).
public struct OSSDeletedObject: Sendable, Hashable {
    public var objectKey: String
    /// The version removed, when the request named one.
    public var versionId: String?
    /// The delete added a delete marker (no version named on a versioned bucket) or removed one.
    public var deleteMarker: Bool
    /// The id of that delete marker.
    public var deleteMarkerVersionId: String?

    public init(objectKey: String, versionId: String? = nil, deleteMarker: Bool = false, deleteMarkerVersionId: String? = nil) {
        self.objectKey = objectKey
        self.versionId = versionId
        self.deleteMarker = deleteMarker
        self.deleteMarkerVersionId = deleteMarkerVersionId
    }
}

/// The result of DeleteMultipleObjects.
public struct OSSDeleteMultipleObjectsResult: Sendable {
    /// The deleted keys (empty in quiet mode). Missing keys count as deleted, as on OSS.
    public var deletedObjects: [String]
    /// The reply's entries, with versions and delete markers (empty in quiet mode).
    public var deleted: [OSSDeletedObject]
    public var requestId: String
}
