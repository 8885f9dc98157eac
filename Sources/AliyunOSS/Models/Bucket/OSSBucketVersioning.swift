#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A bucket's versioning state (`<Status>` of `<VersioningConfiguration>`). A bucket starts unversioned; once
/// enabled it is `Enabled` or `Suspended`, never unversioned again.
public struct OSSVersioningStatus: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Every write creates a new version with its own id; a delete without a version id adds a delete marker.
    public static let enabled = OSSVersioningStatus(rawValue: "Enabled")
    /// Versions already made are kept; new writes replace the `null` version.
    public static let suspended = OSSVersioningStatus(rawValue: "Suspended")

    public var description: String { rawValue }
}

/// PutBucketVersioning (`PUT /?versioning`): enables or suspends versioning.
public struct OSSPutBucketVersioningRequest: Sendable {
    public var bucketName: String
    /// ``OSSVersioningStatus/enabled`` or ``OSSVersioningStatus/suspended``.
    public var status: OSSVersioningStatus

    public init(bucketName: String, status: OSSVersioningStatus) {
        self.bucketName = bucketName
        self.status = status
    }
}

/// GetBucketVersioning (`GET /?versioning`).
public struct OSSGetBucketVersioningRequest: Sendable {
    public var bucketName: String

    public init(bucketName: String) {
        self.bucketName = bucketName
    }
}

/// The result of GetBucketVersioning.
public struct OSSGetBucketVersioningResult: Sendable {
    /// `nil` for a bucket on which versioning was never enabled.
    public var status: OSSVersioningStatus?
    public var requestId: String
}

/// ListObjectVersions (`GET /?versions`): one page of every version and delete marker in a bucket, keys in
/// byte order and each key's versions newest first. Keys are requested URL-encoded and decoded, so any key
/// survives the XML round trip. ``OSSClient/listObjectVersionsPaginator(_:)`` walks every page.
public struct OSSListObjectVersionsRequest: Sendable {
    public var bucketName: String
    /// Only keys starting with this.
    public var prefix: String?
    /// Groups keys by the part up to the first `delimiter` after the prefix into
    /// ``OSSListObjectVersionsResult/commonPrefixes``.
    public var delimiter: String?
    /// Start after this key (with `versionIdMarker`: after that version of it).
    public var keyMarker: String?
    /// Start after this version of `keyMarker` (requires `keyMarker`).
    public var versionIdMarker: String?
    /// Versions, delete markers and common prefixes per page, 1...1000 (the server's default is 100).
    public var maxKeys: Int?

    public init(
        bucketName: String, prefix: String? = nil, delimiter: String? = nil, keyMarker: String? = nil,
        versionIdMarker: String? = nil, maxKeys: Int? = nil
    ) {
        self.bucketName = bucketName
        self.prefix = prefix
        self.delimiter = delimiter
        self.keyMarker = keyMarker
        self.versionIdMarker = versionIdMarker
        self.maxKeys = maxKeys
    }
}

/// An object's or a bucket's owner, as a listing names it.
public struct OSSOwner: Sendable, Hashable {
    public var id: String?
    public var displayName: String?
}

/// One version of an object in a listing (`<Version>`).
public struct OSSObjectVersion: Sendable, Hashable {
    public var objectKey: String
    /// `null` for the version written while versioning was off or suspended.
    public var versionId: String
    /// Whether this is the key's current version.
    public var isLatest: Bool
    public var lastModified: Date?
    /// Quoted, as sent.
    public var eTag: String?
    public var size: Int64
    public var storageClass: String?
    /// `Normal`, `Multipart`, `Appendable` or `Symlink`.
    public var objectType: String?
    public var owner: OSSOwner?
    /// The restore state of an Archive version (the `x-oss-restore` form).
    public var restoreInfo: String?
    /// When a lifecycle rule moved the version to Cold Archive or Deep Cold Archive.
    public var transitionTime: Date?
}

/// A delete marker in a listing (`<DeleteMarker>`): the version a delete without a version id adds. While it is
/// the latest, GET and HEAD of the key answer 404.
public struct OSSDeleteMarker: Sendable, Hashable {
    public var objectKey: String
    public var versionId: String
    public var isLatest: Bool
    public var lastModified: Date?
    public var owner: OSSOwner?
}

/// A version or a delete marker, in the order the listing gave them.
public enum OSSObjectVersionEntry: Sendable, Hashable {
    case version(OSSObjectVersion)
    case deleteMarker(OSSDeleteMarker)

    public var objectKey: String {
        switch self {
        case .version(let version): version.objectKey
        case .deleteMarker(let marker): marker.objectKey
        }
    }

    public var versionId: String {
        switch self {
        case .version(let version): version.versionId
        case .deleteMarker(let marker): marker.versionId
        }
    }

    public var isLatest: Bool {
        switch self {
        case .version(let version): version.isLatest
        case .deleteMarker(let marker): marker.isLatest
        }
    }

    public var lastModified: Date? {
        switch self {
        case .version(let version): version.lastModified
        case .deleteMarker(let marker): marker.lastModified
        }
    }

    public var isDeleteMarker: Bool {
        if case .deleteMarker = self { return true }
        return false
    }
}

/// One page of ListObjectVersions.
public struct OSSListObjectVersionsResult: Sendable {
    public var bucketName: String
    public var prefix: String?
    public var delimiter: String?
    public var keyMarker: String?
    public var versionIdMarker: String?
    public var maxKeys: Int?
    public var isTruncated: Bool
    /// Where the next page starts, when truncated (with ``nextVersionIdMarker``).
    public var nextKeyMarker: String?
    public var nextVersionIdMarker: String?
    /// Versions and delete markers in the listing's order: keys in byte order, each key's newest first.
    public var entries: [OSSObjectVersionEntry]
    public var commonPrefixes: [String]
    public var requestId: String

    /// The versions of the page (no delete markers), in order.
    public var versions: [OSSObjectVersion] {
        entries.compactMap { if case .version(let version) = $0 { version } else { nil } }
    }

    /// The delete markers of the page, in order.
    public var deleteMarkers: [OSSDeleteMarker] {
        entries.compactMap { if case .deleteMarker(let marker) = $0 { marker } else { nil } }
    }
}
