import Crypto
import Foundation

/// Encodes checkpoint records into a self-checking JSON envelope and decodes them back with precise errors.
///
/// ```json
/// {"checksum":"<sha256 hex of payload>","kind":"upload","magic":"aliyun-oss-swift/resumable-record",
///  "payload":"{...record encoded with sorted keys...}","version":1}
/// ```
/// The payload is kept as the exact text that was hashed, so the check needs no re-encoding. Decoding never
/// traps, whatever the bytes: everything that is not a valid record of the expected kind becomes one of
/// `recordCorrupt`, `recordWrongMagic`, `recordUnsupportedVersion`, `recordChecksumMismatch` or `recordForeign`.
public enum OSSRecordCodec {
    /// The magic value of the envelope.
    public static let magic = "aliyun-oss-swift/resumable-record"
    /// The envelope format this code writes and reads.
    public static let envelopeVersion = 1
    /// Records larger than this are refused unread (a 100,000-part download record is about 10 MiB).
    public static let maximumRecordSize = 64 * 1024 * 1024

    private struct Envelope: Codable {
        var magic: String?
        var version: Int?
        var kind: String?
        var checksum: String?
        var payload: String?
    }

    /// The envelope bytes for `record`.
    public static func encode<Record: OSSTransferRecord>(_ record: Record) throws(OSSResumableError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            let payloadData = try encoder.encode(record)
            guard let payload = String(data: payloadData, encoding: .utf8) else {
                throw OSSResumableError.invalidArgument("record payload is not UTF-8")
            }
            let envelope = Envelope(
                magic: magic,
                version: envelopeVersion,
                kind: Record.recordKind.rawValue,
                checksum: sha256Hex(Array(payload.utf8)),
                payload: payload
            )
            return Array(try encoder.encode(envelope))
        } catch let error as OSSResumableError {
            throw error
        } catch {
            throw .invalidArgument("record cannot be encoded: \(error)")
        }
    }

    /// Decodes and checks a record of type `Record` from `bytes`.
    public static func decode<Record: OSSTransferRecord>(_ type: Record.Type, from bytes: [UInt8]) throws(OSSResumableError)
        -> Record
    {
        guard !bytes.isEmpty else { throw .recordCorrupt("empty record") }
        guard bytes.count <= maximumRecordSize else { throw .recordCorrupt("record is \(bytes.count) bytes") }
        let decoder = JSONDecoder()
        let envelope: Envelope
        do {
            envelope = try decoder.decode(Envelope.self, from: Data(bytes))
        } catch {
            throw .recordCorrupt("not a JSON record (truncated or garbage)")
        }
        guard envelope.magic == magic else { throw .recordWrongMagic }
        guard let version = envelope.version else { throw .recordCorrupt("missing envelope version") }
        guard version == envelopeVersion else { throw .recordUnsupportedVersion(version) }
        guard let payload = envelope.payload, let checksum = envelope.checksum else {
            throw .recordCorrupt("missing payload or checksum")
        }
        let payloadBytes = Array(payload.utf8)
        guard sha256Hex(payloadBytes) == checksum.lowercased() else { throw .recordChecksumMismatch }
        guard envelope.kind == Record.recordKind.rawValue else {
            throw .recordForeign("a \(envelope.kind ?? "unknown") record where a \(Record.recordKind.rawValue) record was expected")
        }
        let record: Record
        do {
            record = try decoder.decode(Record.self, from: Data(payloadBytes))
        } catch {
            throw .recordCorrupt("payload does not decode as a \(Record.recordKind.rawValue) record")
        }
        guard record.kind == Record.recordKind else {
            throw .recordForeign("payload kind \(record.kind.rawValue) does not match the envelope")
        }
        try record.validate()
        return record
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
