/// The checkpoint of a background multipart upload: the upload id, and for every part its byte span, the
/// CRC-64 and MD5 of the bytes handed to the system, and its state (``OSSBackgroundPartState``).
///
/// Written atomically and durably through ``OSSRecordStore`` after every change, before the system is told
/// anything (a part is recorded `queued` before its task is submitted), so a process killed at any point leaves
/// a record the next process can reconcile. It never holds credentials, signatures or presigned URLs.
package struct OSSBackgroundUploadRecord: Sendable, Hashable, Codable {
    package typealias Part = OSSBackgroundPart

    package static let currentVersion = 1

    package var version: Int
    package var kind: OSSRecordKind
    /// The record's name and the prefix of its tasks' descriptions.
    package var transferId: String
    package var bucket: String
    package var key: String
    /// The local file: absolute in memory; stored relative to the base directory when the store has one and
    /// the file lies inside it (``OSSBaseDirectory``). Records written with absolute paths load as they are.
    package var filePath: String
    package var fileSize: Int64
    package var partSize: Int64
    package var uploadId: String
    /// The most part tasks in the system's hands at once.
    package var maximumQueuedParts: Int
    package var parts: [Part]
    /// When the app paused the transfer (seconds since 1970); `nil` while it runs. A paused transfer gets no new
    /// tasks: its parts' outcomes are still recorded, and resuming submits what is missing.
    package var pausedAt: Int64?

    package init(
        transferId: String, bucket: String, key: String, filePath: String, plan: OSSPartPlan, uploadId: String,
        maximumQueuedParts: Int = 16
    ) {
        self.maximumQueuedParts = max(1, maximumQueuedParts)
        self.version = Self.currentVersion
        self.kind = .backgroundUpload
        self.transferId = transferId
        self.bucket = bucket
        self.key = key
        self.filePath = filePath
        self.fileSize = plan.totalLength
        self.partSize = plan.partSize
        self.uploadId = uploadId
        self.parts = plan.parts.map { Part(number: $0.number, offset: $0.offset, length: $0.length) }
    }
}

extension OSSBackgroundUploadRecord: OSSBackgroundRecord {
    package static var recordKind: OSSRecordKind { .backgroundUpload }

    package func validate() throws(OSSResumableError) {
        try validateCommon(currentVersion: Self.currentVersion, total: fileSize, emptyPartAllowed: true)
        guard !uploadId.isEmpty, !parts.isEmpty else { throw .recordCorrupt("no upload id or no parts") }
        for part in parts {
            if case .done = part.state, part.crc64 == nil { throw .recordCorrupt("part \(part.number) is done without a CRC-64") }
        }
    }

    /// The file's path relative to `base` when it lies inside it (the part copies live in the record directory,
    /// which the app names again at each launch).
    package func relativized(to base: OSSBaseDirectory) -> OSSBackgroundUploadRecord {
        var record = self
        record.filePath = base.portable(filePath)
        return record
    }

    package func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> OSSBackgroundUploadRecord {
        var record = self
        record.filePath = try OSSBaseDirectory.resolve(filePath, against: base)
        return record
    }
}
