#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The result of ``OSSClient/resumableDownload(_:)``.
public struct OSSResumableDownloadResult: Sendable {
    /// The destination file, now holding the downloaded bytes.
    public var fileURL: URL
    /// The object's ETag (as the server sent it).
    public var eTag: String
    /// The object's `Last-Modified` header.
    public var lastModified: String?
    /// The object's size.
    public var objectSize: Int64
    /// The first byte of the object that was downloaded (0 for a whole-object download).
    public var rangeStart: Int64
    /// The number of bytes written to the file.
    public var totalBytes: Int64
    /// The CRC-64 of the bytes written, combined from the parts.
    public var crc64: UInt64
    /// The whole object's CRC-64 from HEAD, when the server sent one. Equal to ``crc64`` for a whole-object
    /// download (checked when CRC checking is on).
    public var objectCRC64: UInt64?
    /// The bytes that were already on disk from an earlier run and were not fetched again.
    public var resumedBytes: Int64
    /// The part size used (the record's when resuming).
    public var partSize: Int64
    /// The version downloaded, in a bucket with versioning (`x-oss-version-id`); `nil` in one without.
    public var versionId: String?
    /// When the download resumed on the version it began with although the key had a newer current version by
    /// then: that version's id. The file holds ``versionId``, not the key's current content.
    public var newerVersionId: String?
}
