#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


/// A storage class (`x-oss-storage-class`).
public struct OSSStorageClass: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let standard = OSSStorageClass(rawValue: "Standard")
    public static let ia = OSSStorageClass(rawValue: "IA")
    /// Must be restored (``OSSClient/restoreObject(_:)``) before it can be read.
    public static let archive = OSSStorageClass(rawValue: "Archive")
    public static let coldArchive = OSSStorageClass(rawValue: "ColdArchive")
    public static let deepColdArchive = OSSStorageClass(rawValue: "DeepColdArchive")

    public var description: String { rawValue }
}

/// RestoreObject (`POST /key?restore`): makes an Archive object readable for `days` days.
public struct OSSRestoreObjectRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// 1...365.
    public var days: Int
    /// The version to restore; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, days: Int = 1, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.days = days
        self.versionId = versionId
    }
}

/// The state of a restore, from `x-oss-restore` (``OSSHeadObjectResult/restoreStatus``).
public enum OSSRestoreStatus: Sendable, Equatable {
    /// The restore is running; the object cannot be read yet.
    case ongoing
    /// Restored: readable until `expiry`.
    case restored(expiry: Date?)

    /// Parses `ongoing-request="true"` or `ongoing-request="false", expiry-date="<RFC 1123>"`.
    public init?(header: String) {
        if header.contains("ongoing-request=\"true\"") {
            self = .ongoing
            return
        }
        guard header.contains("ongoing-request=\"false\"") else { return nil }
        var expiry: Date?
        if let range = header.firstRange(of: "expiry-date=\"") {
            let rest = header[range.upperBound...]
            expiry = rest.firstIndex(of: "\"").flatMap { OSSDateFormat.parseRFC1123(String(rest[..<$0])) }
        }
        self = .restored(expiry: expiry)
    }
}

extension OSSHeadObjectResult {
    /// The restore state of an Archive object, from `x-oss-restore`; `nil` when no restore was requested.
    public var restoreStatus: OSSRestoreStatus? {
        headers["x-oss-restore"].flatMap { OSSRestoreStatus(header: $0) }
    }

    /// `x-oss-tagging-count`.
    public var taggingCount: Int {
        headers["x-oss-tagging-count"].flatMap { Int($0) } ?? 0
    }
}
