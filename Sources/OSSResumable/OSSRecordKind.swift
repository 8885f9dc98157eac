/// Which transfer a record belongs to. A record of one kind offered where another is expected is "foreign".
package enum OSSRecordKind: String, Sendable, Hashable, Codable {
    case upload
    case download
    /// A multipart upload whose parts the system carries (``OSSBackgroundUploadRecord``).
    case backgroundUpload
    /// A download whose ranges the system carries (``OSSBackgroundDownloadRecord``).
    case backgroundDownload
}

/// Whether CRC-64 checking is on for a transfer. Part of a record's identity: a record written with one mode
/// is not resumed with the other.
package enum OSSCRCMode: String, Sendable, Hashable, Codable {
    /// Check each part's CRC-64 and the object's combined CRC-64.
    case enabled
    /// No CRC checks.
    case disabled
}
