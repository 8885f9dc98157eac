/// The checkpoint of a background download: the object it pins (size, ETag, CRC-64), the temporary file the
/// ranges are placed into, and per range its state (``OSSBackgroundPartState``: `done` holds the object's ETag
/// and the CRC-64 of the range's bytes as placed).
///
/// Written atomically and durably through ``OSSRecordStore`` before the system is told anything; a range is
/// recorded done only after its bytes are in the temporary file and synced. Never holds credentials or URLs.
package struct OSSBackgroundDownloadRecord: Sendable, Hashable, Codable {
    package typealias Part = OSSBackgroundPart

    package static let currentVersion = 1

    package var version: Int
    package var kind: OSSRecordKind
    package var transferId: String
    package var bucket: String
    package var key: String
    /// Where the object goes once every range is verified: absolute in memory, stored relative to the base
    /// directory when the store has one and the path lies inside it (see ``OSSBackgroundUploadRecord/filePath``).
    package var destinationPath: String
    /// The temporary file the ranges are placed into (stored as ``destinationPath`` is).
    package var tempFilePath: String
    package var objectSize: Int64
    /// The object's ETag, sent as `If-Match` with every range: a replaced object fails the ranges with 412.
    package var etag: String
    /// The object's CRC-64 as the server reported it, checked against the ranges' combined CRC-64.
    package var objectCRC64: UInt64?
    package var partSize: Int64
    package var maximumQueuedParts: Int
    package var parts: [Part]
    /// When the app paused the download (seconds since 1970); `nil` while it runs (see
    /// ``OSSBackgroundUploadRecord/pausedAt``).
    package var pausedAt: Int64?

    package init(
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
    package func rangeHeader(part number: Int) -> String? {
        guard let part = parts.first(where: { $0.number == number }), part.length > 0 else { return nil }
        return "bytes=\(part.offset)-\(part.offset + part.length - 1)"
    }
}

extension OSSBackgroundDownloadRecord: OSSBackgroundRecord {
    package static var recordKind: OSSRecordKind { .backgroundDownload }

    package func validate() throws(OSSResumableError) {
        try validateCommon(currentVersion: Self.currentVersion, total: objectSize, emptyPartAllowed: false)
        guard !etag.isEmpty else { throw .recordCorrupt("a background download record without an ETag") }
    }

}

extension OSSBackgroundDownloadRecord: OSSDownloadRecordPaths {}
