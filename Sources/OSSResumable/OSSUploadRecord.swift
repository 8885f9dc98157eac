/// The checkpoint of a resumable multipart upload.
///
/// It says which upload (`uploadId`) belongs to which local file, bucket, key, part size and CRC mode, what the
/// file looked like when the upload began, and which parts the server has confirmed. It never holds credentials,
/// signatures or tokens.
package struct OSSUploadRecord: Sendable, Hashable, Codable {
    /// A part the server confirmed with a 200 to UploadPart (or listed with the expected size).
    package struct ConfirmedPart: Sendable, Hashable, Codable {
        package let number: Int
        package let size: Int64
        /// The part's CRC-64, when known.
        package let crc64: UInt64?
        /// The ETag as the server sent it (quotes kept).
        package let etag: String

        package init(number: Int, size: Int64, crc64: UInt64?, etag: String) {
            self.number = number
            self.size = size
            self.crc64 = crc64
            self.etag = etag
        }
    }

    /// The payload format this code writes.
    package static let currentVersion = 1

    package var version: Int
    package var kind: OSSRecordKind
    package var bucket: String
    package var key: String
    /// The local file: an absolute path, or a path relative to the transfer's base directory (see
    /// ``OSSBaseDirectory``) as stored by a transfer that has one.
    package var filePath: String
    package var fileIdentity: OSSFileIdentity
    /// The part size the caller asked for (part of the record's name).
    package var requestedPartSize: Int64
    /// The effective part size (grown to fit 10,000 parts).
    package var partSize: Int64
    package var crcMode: OSSCRCMode
    package var uploadId: String
    /// Confirmed parts, sorted by number.
    package var parts: [ConfirmedPart]
    /// The upload callback headers (`x-oss-callback`, `x-oss-callback-var`: Base64 JSON) to send with Complete,
    /// so a resumed or transfer-manager upload still sends the callback. Optional and absent from records without
    /// a callback, so older records and their checksums are unchanged. Never credentials.
    package var callbackHeaders: [String: String]?
    /// `true` for a sequential upload (initiated with `?sequential`): its parts must go one at a time, in order, so
    /// a resume (by a request that does not say it, e.g. the transfer manager's) keeps doing that. Absent for a
    /// parallel upload, so older records and their checksums are unchanged.
    package var sequential: Bool?

    package init(
        bucket: String,
        key: String,
        filePath: String,
        fileIdentity: OSSFileIdentity,
        requestedPartSize: Int64,
        partSize: Int64,
        crcMode: OSSCRCMode,
        uploadId: String,
        parts: [ConfirmedPart] = []
    ) {
        self.version = OSSUploadRecord.currentVersion
        self.kind = .upload
        self.bucket = bucket
        self.key = key
        self.filePath = filePath
        self.fileIdentity = fileIdentity
        self.requestedPartSize = requestedPartSize
        self.partSize = partSize
        self.crcMode = crcMode
        self.uploadId = uploadId
        self.parts = parts.sorted { $0.number < $1.number }
    }
}

extension OSSUploadRecord: OSSTransferRecord {
    package static var recordKind: OSSRecordKind { .upload }

    /// Checks that the values make sense (the checksum only proves they were not altered).
    package func validate() throws(OSSResumableError) {
        guard kind == .upload else { throw .recordForeign("a \(kind.rawValue) record where an upload record was expected") }
        guard version == OSSUploadRecord.currentVersion else { throw .recordUnsupportedVersion(version) }
        guard !uploadId.isEmpty else { throw .recordCorrupt("empty upload id") }
        guard fileIdentity.size >= 0 else { throw .recordCorrupt("negative file size") }
        guard partSize > 0, requestedPartSize > 0 else { throw .recordCorrupt("part size must be positive") }
        var previous = 0
        for part in parts {
            guard part.number > previous, part.number <= 10_000 else {
                throw .recordCorrupt("part numbers must be ascending, unique and in 1...10000")
            }
            guard part.size >= 0, part.size <= partSize else { throw .recordCorrupt("part \(part.number) has size \(part.size)") }
            previous = part.number
        }
    }
}

extension OSSUploadRecord {
    package func relativized(to base: OSSBaseDirectory) -> OSSUploadRecord {
        var record = self
        record.filePath = base.portable(filePath)
        if OSSBaseDirectory.isRelative(record.filePath) {
            // A restored or migrated container gives the file a new inode: size, time and content decide.
            record.fileIdentity = fileIdentity.withoutFileSystemIdentity
        }
        return record
    }

    package func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> OSSUploadRecord {
        var record = self
        record.filePath = try OSSBaseDirectory.resolve(filePath, against: base)
        return record
    }

    /// This record marked sequential, or not (the mark is then absent).
    package func withSequential(_ sequential: Bool) -> OSSUploadRecord {
        var copy = self
        copy.sequential = sequential ? true : nil
        return copy
    }

    /// This record with `callbackHeaders` set (nil or empty removes them).
    package func withCallbackHeaders(_ headers: [String: String]?) -> OSSUploadRecord {
        var copy = self
        copy.callbackHeaders = (headers?.isEmpty ?? true) ? nil : headers
        return copy
    }
}
