import Crypto
import Foundation
import OSSResumable

/// Everything needed to resume a transfer, as a `Codable` value an app can store anywhere (a database, user
/// defaults, its own server) and hand back later — like `URLSession`'s resume data, but inspectable.
///
/// Get one from ``OSSTransferManager/resumeToken(for:)`` or from the ``OSSClientError/resumeToken`` of the
/// `taskPaused` error a paused transfer throws. Give it back to ``OSSClient/resumableUpload(_:resumingFrom:)`` /
/// ``OSSClient/resumableDownload(_:resumingFrom:)`` with a matching request, or to
/// ``OSSTransferManager/restore(_:)`` (which writes the checkpoint record again) then
/// ``OSSTransferManager/resume(_:)``. The token never holds credentials, signatures or security tokens.
///
/// A transfer started with a base directory (``OSSResumableUploadRequest/baseDirectoryURL``) gets a token whose
/// local paths are relative to it, so the token still resumes after the directory moved (an iOS app's container
/// after an update or a restore): give it back with a request built from the new container.
///
/// The inspectable fields (bucket, key, upload id or ETag, parts) are encoded for reading; the embedded record is
/// authoritative. A SHA-256 checksum of the record's canonical encoding (``OSSCanonicalEncoder``: sorted keys,
/// fixed escaping, so the same on every platform whatever `JSONEncoder` the app uses) is encoded beside it and
/// checked, with the record's values and the readable copies, when the token is decoded: an edited or truncated
/// token is refused (`DecodingError.dataCorrupted`, whose description says what is wrong) rather than resumed
/// wrongly. The checksum is not a signature: it catches edits and damage, not forgery. Tokens of version 1
/// (checksum over `JSONEncoder` output) are still read.
public struct OSSResumeToken: Sendable, Hashable, Codable {
    /// The token format this code writes.
    public static let currentVersion = 2
    /// The token formats this code reads.
    public static let readableVersions = 1...2

    /// A confirmed part: written by the server (upload) or to the temporary file (download).
    public struct Part: Sendable, Hashable, Codable {
        public var number: Int
        /// Offset in the object (downloads) or in the file (uploads).
        public var offset: Int64
        public var size: Int64
        /// The ETag the server returned (uploads only).
        public var eTag: String?
        public var crc64: UInt64?
    }

    enum Record: Sendable, Hashable {
        case upload(OSSUploadRecord)
        case download(OSSDownloadRecord)
    }

    let record: Record

    /// A token of `record`; with `base`, its local paths inside `base` are made relative.
    init(upload record: OSSUploadRecord, base: OSSBaseDirectory? = nil) {
        self.record = .upload(base.map(record.relativized(to:)) ?? record)
    }

    /// A token of `record`; with `base`, its local paths inside `base` are made relative.
    init(download record: OSSDownloadRecord, base: OSSBaseDirectory? = nil) {
        self.record = .download(base.map(record.relativized(to:)) ?? record)
    }

    private init(record: Record) { self.record = record }

    /// This token with its local paths inside `base` made relative (unchanged without a base).
    func relativized(to base: OSSBaseDirectory?) -> OSSResumeToken {
        guard let base else { return self }
        switch record {
        case .upload(let r): return OSSResumeToken(record: .upload(r.relativized(to: base)))
        case .download(let r): return OSSResumeToken(record: .download(r.relativized(to: base)))
        }
    }

    /// Whether the token's local paths are relative to a base directory (it was made by a transfer with one).
    public var isRelativeToBaseDirectory: Bool { OSSBaseDirectory.isRelative(filePath) }

    /// The token format version (a decoded token is written again in the current one).
    public var version: Int { Self.currentVersion }
    /// The version of the checkpoint record inside.
    public var recordVersion: Int {
        switch record {
        case .upload(let r): r.version
        case .download(let r): r.version
        }
    }
    public var kind: OSSTransferKind {
        switch record {
        case .upload: .upload
        case .download: .download
        }
    }
    public var bucketName: String {
        switch record {
        case .upload(let r): r.bucket
        case .download(let r): r.bucket
        }
    }
    public var objectKey: String {
        switch record {
        case .upload(let r): r.key
        case .download(let r): r.key
        }
    }
    /// The local file: the source of an upload, the destination of a download. Relative to the transfer's base
    /// directory when it had one (see ``isRelativeToBaseDirectory``), absolute otherwise.
    public var filePath: String {
        switch record {
        case .upload(let r): r.filePath
        case .download(let r): r.destinationPath
        }
    }
    /// The multipart upload id (uploads).
    public var uploadId: String? {
        if case .upload(let r) = record { return r.uploadId }
        return nil
    }
    /// The ETag of the object being downloaded (downloads): a replaced object is never stitched in.
    public var objectETag: String? {
        if case .download(let r) = record { return r.object.etag }
        return nil
    }
    public var partSize: Int64 {
        switch record {
        case .upload(let r): r.partSize
        case .download(let r): r.partSize
        }
    }
    /// The bytes to transfer in all.
    public var totalBytes: Int64 {
        switch record {
        case .upload(let r): r.fileIdentity.size
        case .download(let r): r.range.length
        }
    }
    /// The confirmed parts, by number.
    public var parts: [Part] {
        switch record {
        case .upload(let r):
            r.parts.map {
                Part(
                    number: $0.number, offset: Int64($0.number - 1) * r.partSize, size: $0.size, eTag: $0.etag,
                    crc64: $0.crc64)
            }
        case .download(let r):
            r.parts.map { Part(number: $0.number, offset: $0.offset, size: $0.length, eTag: nil, crc64: $0.crc64) }
        }
    }
    /// The bytes a resume keeps: the confirmed parts' sizes, plus for a download the written prefixes of the parts
    /// that were in flight (``OSSDownloadRecord/partials``).
    public var bytesDone: Int64 {
        switch record {
        case .upload: parts.reduce(0) { $0 + $1.size }
        case .download(let r): r.bytesDone
        }
    }

    /// The record file name this token restores to (the transfer's ``OSSTransfer/id``).
    var recordName: String {
        switch record {
        case .upload(let r):
            OSSRecordStore.uploadRecordName(
                filePath: r.filePath, bucket: r.bucket, key: r.key, requestedPartSize: r.requestedPartSize,
                crcMode: r.crcMode)
        case .download(let r):
            OSSRecordStore.downloadRecordName(
                bucket: r.bucket, key: r.key, requestedRange: r.requestedRange, destinationPath: r.destinationPath)
        }
    }

    // MARK: Codable

    private enum CodingKeys: String, CodingKey {
        case version, recordVersion, kind, bucketName, objectKey, filePath, uploadId, objectETag, partSize
        case totalBytes, bytesDone, parts, record, checksum
    }

    /// The SHA-256 (hex) of the record's canonical encoding (``OSSCanonicalEncoder``): unaffected by the encoder
    /// the app uses and by the platform.
    var recordChecksum: String {
        get throws {
            switch record {
            case .upload(let r): try OSSCanonicalEncoder.sha256Hex(r)
            case .download(let r): try OSSCanonicalEncoder.sha256Hex(r)
            }
        }
    }

    /// The checksum version 1 tokens carry: the SHA-256 of `JSONEncoder` output with sorted keys and unescaped
    /// slashes.
    var legacyRecordChecksum: String {
        get throws {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data =
                switch record {
                case .upload(let r): try encoder.encode(r)
                case .download(let r): try encoder.encode(r)
                }
            return SHA256.hash(data: data).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(recordVersion, forKey: .recordVersion)
        try container.encode(kind, forKey: .kind)
        try container.encode(bucketName, forKey: .bucketName)
        try container.encode(objectKey, forKey: .objectKey)
        try container.encode(filePath, forKey: .filePath)
        try container.encodeIfPresent(uploadId, forKey: .uploadId)
        try container.encodeIfPresent(objectETag, forKey: .objectETag)
        try container.encode(partSize, forKey: .partSize)
        try container.encode(totalBytes, forKey: .totalBytes)
        try container.encode(bytesDone, forKey: .bytesDone)
        try container.encode(parts, forKey: .parts)
        switch record {
        case .upload(let r): try container.encode(r, forKey: .record)
        case .download(let r): try container.encode(r, forKey: .record)
        }
        try container.encode(try recordChecksum, forKey: .checksum)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try container.decode(Int.self, forKey: .version)
        guard Self.readableVersions.contains(version) else {
            throw DecodingError.dataCorruptedError(
                forKey: .version, in: container,
                debugDescription: "unsupported resume token version \(version) (this SDK reads \(Self.readableVersions))")
        }
        let kind = try container.decode(OSSTransferKind.self, forKey: .kind)
        do {
            switch kind {
            case .upload:
                let r = try container.decode(OSSUploadRecord.self, forKey: .record)
                try r.validate()
                record = .upload(r)
            case .download:
                let r = try container.decode(OSSDownloadRecord.self, forKey: .record)
                try r.validate()
                record = .download(r)
            }
        } catch let error as OSSResumableError {
            throw DecodingError.dataCorruptedError(
                forKey: .record, in: container, debugDescription: "invalid record: \(error)")
        }
        // The readable copies must agree with the record: an edited token is refused.
        let readBucket = try container.decode(String.self, forKey: .bucketName)
        let readKey = try container.decode(String.self, forKey: .objectKey)
        let readUploadId = try container.decodeIfPresent(String.self, forKey: .uploadId)
        let readPartSize = try container.decode(Int64.self, forKey: .partSize)
        let agrees =
            readBucket == bucketName && readKey == objectKey && readUploadId == uploadId && readPartSize == partSize
        guard agrees else {
            throw DecodingError.dataCorruptedError(
                forKey: .record, in: container, debugDescription: "the token's fields do not match its record")
        }
        let checksum = try container.decode(String.self, forKey: .checksum)
        let expected = version == 1 ? try legacyRecordChecksum : try recordChecksum
        guard checksum.lowercased() == expected else {
            throw DecodingError.dataCorruptedError(
                forKey: .checksum, in: container,
                debugDescription: "the token's record does not match its checksum (the token was edited or damaged)")
        }
    }
}
