/// The checkpoint of a background download: the object it pins (size, ETag, CRC-64), the temporary file the
/// ranges are placed into, and per range its state (``OSSBackgroundPartState``: `done` holds the object's ETag
/// and the CRC-64 of the range's bytes as placed).
///
/// Written atomically and durably through ``OSSRecordStore`` before the system is told anything; a range is
/// recorded done only after its bytes are in the temporary file and synced. Never holds credentials or URLs.
public struct OSSBackgroundDownloadRecord: Sendable, Hashable, Codable {
    public typealias Part = OSSBackgroundPart

    public static let currentVersion = 1

    public var version: Int
    public var kind: OSSRecordKind
    public var transferId: String
    public var bucket: String
    public var key: String
    /// Where the object goes once every range is verified: absolute in memory, stored relative to the base
    /// directory when the store has one and the path lies inside it (see ``OSSBackgroundUploadRecord/filePath``).
    public var destinationPath: String
    /// The temporary file the ranges are placed into (stored as ``destinationPath`` is).
    public var tempFilePath: String
    public var objectSize: Int64
    /// The object's ETag, sent as `If-Match` with every range: a replaced object fails the ranges with 412.
    public var etag: String
    /// The object's CRC-64 as the server reported it, checked against the ranges' combined CRC-64.
    public var objectCRC64: UInt64?
    public var partSize: Int64
    public var maximumQueuedParts: Int
    public var parts: [Part]
    /// When the app paused the download (seconds since 1970); `nil` while it runs (see
    /// ``OSSBackgroundUploadRecord/pausedAt``).
    public var pausedAt: Int64?

    public init(
        transferId: String, bucket: String, key: String, destinationPath: String, tempFilePath: String, etag: String,
        objectCRC64: UInt64?, plan: OSSPartPlan, maximumQueuedParts: Int = 16
    ) {
        self.version = Self.currentVersion
        self.kind = .backgroundDownload
        self.transferId = transferId
        self.bucket = bucket
        self.key = key
        self.destinationPath = destinationPath
        self.tempFilePath = tempFilePath
        self.objectSize = plan.totalLength
        self.etag = etag
        self.objectCRC64 = objectCRC64
        self.partSize = plan.partSize
        self.maximumQueuedParts = max(1, maximumQueuedParts)
        self.parts = plan.parts.map { Part(number: $0.number, offset: $0.offset, length: $0.length) }
    }

    /// The `Range` header of part `number`'s task.
    public func rangeHeader(part number: Int) -> String? {
        guard let part = parts.first(where: { $0.number == number }), part.length > 0 else { return nil }
        return "bytes=\(part.offset)-\(part.offset + part.length - 1)"
    }
}

extension OSSBackgroundDownloadRecord: OSSBackgroundRecord {
    public static var recordKind: OSSRecordKind { .backgroundDownload }

    public func validate() throws(OSSResumableError) {
        try validateCommon(currentVersion: Self.currentVersion, total: objectSize, emptyPartAllowed: false)
        guard !etag.isEmpty else { throw .recordCorrupt("a background download record without an ETag") }
    }

}

extension OSSBackgroundDownloadRecord: OSSDownloadRecordPaths {}
