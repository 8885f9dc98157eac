/// The checkpoint of a resumable multipart upload.
///
/// It says which upload (`uploadId`) belongs to which local file, bucket, key, part size and CRC mode, what the
/// file looked like when the upload began, and which parts the server has confirmed. It never holds credentials,
/// signatures or tokens.
public struct OSSUploadRecord: Sendable, Hashable, Codable {
    /// A part the server confirmed with a 200 to UploadPart (or listed with the expected size).
    public struct ConfirmedPart: Sendable, Hashable, Codable {
        public let number: Int
        public let size: Int64
        /// The part's CRC-64, when known.
        public let crc64: UInt64?
        /// The ETag as the server sent it (quotes kept).
        public let etag: String

        public init(number: Int, size: Int64, crc64: UInt64?, etag: String) {
            self.number = number
            self.size = size
            self.crc64 = crc64
            self.etag = etag
        }
    }

    /// The payload format this code writes.
    public static let currentVersion = 1

    public var version: Int
    public var kind: OSSRecordKind
    public var bucket: String
    public var key: String
    /// The local file: an absolute path, or a path relative to the transfer's base directory (see
    /// ``OSSBaseDirectory``) as stored by a transfer that has one.
    public var filePath: String
    public var fileIdentity: OSSFileIdentity
    /// The part size the caller asked for (part of the record's name).
    public var requestedPartSize: Int64
    /// The effective part size (grown to fit 10,000 parts).
    public var partSize: Int64
    public var crcMode: OSSCRCMode
    public var uploadId: String
    /// Confirmed parts, sorted by number.
    public var parts: [ConfirmedPart]
    /// The upload callback headers (`x-oss-callback`, `x-oss-callback-var`: Base64 JSON) to send with Complete,
    /// so a resumed or transfer-manager upload still sends the callback. Optional and absent from records without
    /// a callback, so older records and their checksums are unchanged. Never credentials.
    public var callbackHeaders: [String: String]?
    /// `true` for a sequential upload (initiated with `?sequential`): its parts must go one at a time, in order, so
    /// a resume (by a request that does not say it, e.g. the transfer manager's) keeps doing that. Absent for a
    /// parallel upload, so older records and their checksums are unchanged.
    public var sequential: Bool?

    public init(
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
    public static var recordKind: OSSRecordKind { .upload }

    /// Checks that the values make sense (the checksum only proves they were not altered).
    public func validate() throws(OSSResumableError) {
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
    public func relativized(to base: OSSBaseDirectory) -> OSSUploadRecord {
        var record = self
        record.filePath = base.portable(filePath)
        if OSSBaseDirectory.isRelative(record.filePath) {
            // A restored or migrated container gives the file a new inode: size, time and content decide.
            record.fileIdentity = fileIdentity.withoutFileSystemIdentity
        }
        return record
    }

    public func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> OSSUploadRecord {
        var record = self
        record.filePath = try OSSBaseDirectory.resolve(filePath, against: base)
        return record
    }

    /// This record marked sequential, or not (the mark is then absent).
    public func withSequential(_ sequential: Bool) -> OSSUploadRecord {
        var copy = self
        copy.sequential = sequential ? true : nil
        return copy
    }

    /// This record with `callbackHeaders` set (nil or empty removes them).
    public func withCallbackHeaders(_ headers: [String: String]?) -> OSSUploadRecord {
        var copy = self
        copy.callbackHeaders = (headers?.isEmpty ?? true) ? nil : headers
        return copy
    }
}
