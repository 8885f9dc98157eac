import Crypto
import Foundation

/// Encodes checkpoint records into a self-checking JSON envelope and decodes them back with precise errors.
///
/// ```json
/// {"checksum":"<sha256 hex of the record's canonical encoding>","kind":"upload",
///  "magic":"aliyun-oss-swift/resumable-record","record":{...},"version":2}
/// ```
/// The checksum is the SHA-256 of the record's ``OSSCanonicalEncoder`` bytes, and the record is written in
/// exactly those bytes. A reader decodes the record, encodes it canonically again and compares: the check does
/// not depend on how any `JSONEncoder` orders keys or escapes characters, so a record reformatted by a tool (or
/// written on another platform) still verifies, and a changed value never does.
///
/// Version 1 envelopes (the record as a JSON string in `payload`, the checksum over that string's bytes) are
/// still read, so records written by earlier releases resume.
///
/// Decoding never traps, whatever the bytes: everything that is not a valid record of the expected kind becomes
/// one of `recordCorrupt`, `recordWrongMagic`, `recordUnsupportedVersion`, `recordChecksumMismatch` or
/// `recordForeign`.
package enum OSSRecordCodec {
    /// The magic value of the envelope.
    package static let magic = "aliyun-oss-swift/resumable-record"
    /// The envelope format this code writes.
    package static let envelopeVersion = 2
    /// The envelope formats this code reads.
    package static let readableEnvelopeVersions = 1...2
    /// Records larger than this are refused unread (a 100,000-part download record is about 10 MiB).
    package static let maximumRecordSize = 64 * 1024 * 1024

    private struct Header: Decodable {
        var magic: String?
        var version: Int?
        var kind: String?
        var checksum: String?
        /// Version 1: the record's JSON text.
        var payload: String?
    }

    private struct Body<Record: Decodable>: Decodable {
        var record: Record
    }

    /// The envelope bytes for `record`.
    package static func encode<Record: OSSTransferRecord>(_ record: Record) throws(OSSResumableError) -> [UInt8] {
        let canonical: [UInt8]
        do {
            canonical = try OSSCanonicalEncoder.encode(record)
        } catch {
            throw .invalidArgument("record cannot be encoded: \(error)")
        }
        // Keys in sorted order, as the canonical encoder would write them.
        var out: [UInt8] = []
        out.reserveCapacity(canonical.count + 200)
        out += Array("{\"checksum\":\"\(sha256Hex(canonical))\",\"kind\":\"\(Record.recordKind.rawValue)\",".utf8)
        out += Array("\"magic\":\"\(magic)\",\"record\":".utf8)
        out += canonical
        out += Array(",\"version\":\(envelopeVersion)}".utf8)
        return out
    }

    /// Decodes and checks a record of type `Record` from `bytes`.
    package static func decode<Record: OSSTransferRecord>(_ type: Record.Type, from bytes: [UInt8]) throws(OSSResumableError)
        -> Record
    {
        guard !bytes.isEmpty else { throw .recordCorrupt("empty record") }
        guard bytes.count <= maximumRecordSize else { throw .recordCorrupt("record is \(bytes.count) bytes") }
        let decoder = JSONDecoder()
        let data = Data(bytes)
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: data)
        } catch {
            throw .recordCorrupt("not a JSON record (truncated or garbage)")
        }
        guard header.magic == magic else { throw .recordWrongMagic }
        guard let version = header.version else { throw .recordCorrupt("missing envelope version") }
        guard readableEnvelopeVersions.contains(version) else { throw .recordUnsupportedVersion(version) }
        guard let checksum = header.checksum else { throw .recordCorrupt("missing checksum") }
        let record: Record
        if version == 1 {
            guard let payload = header.payload else { throw .recordCorrupt("missing payload") }
            let payloadBytes = Array(payload.utf8)
            guard sha256Hex(payloadBytes) == checksum.lowercased() else { throw .recordChecksumMismatch }
            try checkKind(header.kind, Record.self)
            do {
                record = try decoder.decode(Record.self, from: Data(payloadBytes))
            } catch {
                throw .recordCorrupt("payload does not decode as a \(Record.recordKind.rawValue) record")
            }
        } else {
            try checkKind(header.kind, Record.self)
            do {
                record = try decoder.decode(Body<Record>.self, from: data).record
            } catch {
                throw .recordCorrupt("the record does not decode as a \(Record.recordKind.rawValue) record")
            }
            guard let canonical = try? OSSCanonicalEncoder.encode(record), sha256Hex(canonical) == checksum.lowercased()
            else { throw .recordChecksumMismatch }
        }
        guard record.kind == Record.recordKind else {
            throw .recordForeign("payload kind \(record.kind.rawValue) does not match the envelope")
        }
        try record.validate()
        return record
    }

    private static func checkKind<Record: OSSTransferRecord>(_ kind: String?, _ type: Record.Type) throws(OSSResumableError) {
        guard kind == Record.recordKind.rawValue else {
            throw .recordForeign("a \(kind ?? "unknown") record where a \(Record.recordKind.rawValue) record was expected")
        }
    }

    /// Lower-case hex SHA-256.
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        hex(Array(SHA256.hash(data: bytes)))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// What can still be read from a record that fails its checks: enough to find what it named on the server, never
/// enough to resume from (nothing in it is trusted but for that).
package struct OSSRecordSalvage: Sendable, Hashable {
    /// The multipart upload an upload record named.
    package var uploadId: String?
    /// The bucket and key the record was for, when they can be read (a salvaged upload id is acted on only for the
    /// transfer's own bucket and key).
    package var bucket: String?
    package var key: String?

    package init(uploadId: String? = nil, bucket: String? = nil, key: String? = nil) {
        self.uploadId = uploadId
        self.bucket = bucket
        self.key = key
    }

    /// Whether the salvaged upload id may be taken as this transfer's: there is one, and the bucket and key the
    /// record still shows (if it shows them) are the transfer's.
    package func uploadId(forBucket bucket: String, key: String) -> String? {
        guard let uploadId else { return nil }
        if let salvaged = self.bucket, salvaged != bucket { return nil }
        if let salvaged = self.key, salvaged != key { return nil }
        return uploadId
    }
}

extension OSSRecordCodec {
    /// Reads what it can of a damaged record (a checksum mismatch, a bad field, a torn write): the upload id and the
    /// bucket and key, from the envelope parsed as plain JSON with no checks, else from the bytes themselves
    /// (`"uploadId":"…"`) when the JSON no longer parses. An upload id is taken only when it looks like one
    /// (1 to 256 letters, digits, `-`, `_`, `.`, `=`).
    package static func salvage(from bytes: [UInt8]) -> OSSRecordSalvage {
        guard !bytes.isEmpty, bytes.count <= maximumRecordSize else { return OSSRecordSalvage() }
        var fields: [String: Any]?
        if let envelope = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] {
            if let record = envelope["record"] as? [String: Any] {
                fields = record
            } else if let payload = envelope["payload"] as? String,
                let record = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any]
            {
                fields = record
            } else {
                fields = envelope  // a record written without the envelope (the encryption client's)
            }
        }
        func field(_ name: String) -> String? {
            if let fields { return fields[name] as? String }
            return scannedString(named: name, in: bytes)
        }
        let uploadId = field("uploadId").flatMap { looksLikeUploadId($0) ? $0 : nil }
        return OSSRecordSalvage(uploadId: uploadId, bucket: field("bucket"), key: field("key"))
    }

    /// The string after `"name":"` (spaces allowed around the colon) up to the next quote, when it holds no escape.
    private static func scannedString(named name: String, in bytes: [UInt8]) -> String? {
        let marker = Array("\"\(name)\"".utf8)
        guard bytes.count > marker.count else { return nil }
        func skipSpaces(_ index: inout Int) {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }
        var index = 0
        while index + marker.count <= bytes.count {
            if bytes[index] == marker[0], Array(bytes[index..<index + marker.count]) == marker {
                var next = index + marker.count
                skipSpaces(&next)
                guard next < bytes.count, bytes[next] == UInt8(ascii: ":") else { return nil }
                next += 1
                skipSpaces(&next)
                guard next < bytes.count, bytes[next] == UInt8(ascii: "\"") else { return nil }
                let start = next + 1
                guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                let value = bytes[start..<end]
                guard !value.contains(UInt8(ascii: "\\")) else { return nil }
                return String(decoding: value, as: UTF8.self)
            }
            index += 1
        }
        return nil
    }

    private static func looksLikeUploadId(_ value: String) -> Bool {
        (1...256).contains(value.utf8.count)
            && value.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                    UInt8(ascii: "="):
                    true
                default: false
                }
            }
    }
}
