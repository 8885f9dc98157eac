import Foundation
@testable import OSSResumable
import Testing

/// Two encodings of the same fields, written in different orders.
private struct Forward: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode("x/y \"q\" \\ é\n\u{1}", forKey: .a)
        try c.encode(UInt64.max, forKey: .b)
        try c.encode([Int64.min, 0, 7], forKey: .c)
        try c.encode(true, forKey: .d)
        try c.encodeNil(forKey: .e)
    }

    enum Key: String, CodingKey { case a, b, c, d, e }
}

private struct Backward: Encodable {
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Forward.Key.self)
        try c.encodeNil(forKey: .e)
        try c.encode(true, forKey: .d)
        try c.encode([Int64.min, 0, 7], forKey: .c)
        try c.encode(UInt64.max, forKey: .b)
        try c.encode("x/y \"q\" \\ é\n\u{1}", forKey: .a)
    }
}

@Suite("Canonical checksums of records")
struct OSSCanonicalChecksumTests {
    @Test("the canonical bytes follow the documented rules, whatever order the fields were encoded in")
    func canonicalBytes() throws {
        let expected =
            #"{"a":"x/y \"q\" \\ é\u000a\u0001","b":18446744073709551615,"c":[-9223372036854775808,0,7],"d":true,"e":null}"#
        #expect(String(decoding: try OSSCanonicalEncoder.encode(Forward()), as: UTF8.self) == expected)
        #expect(try OSSCanonicalEncoder.encode(Backward()) == OSSCanonicalEncoder.encode(Forward()))
    }

    /// The record of a version 2 envelope, as a JSON object.
    func envelope(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("the same record re-encoded by another JSON writer (key order, escaping, spacing) still verifies")
    func checksumIsIndependentOfTheJSONWriter() throws {
        var record = OSSRecordCodecTests.sampleUpload()
        record.filePath = "Documents/clips/été 2024/a\"b.mov"
        let bytes = try OSSRecordCodec.encode(record)
        #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes) == record)
        let object = try envelope(bytes)
        // Foundation's writer: other key order, escaped slashes, pretty-printed.
        for options: JSONSerialization.WritingOptions in [[], [.prettyPrinted], [.sortedKeys, .prettyPrinted]] {
            let rewritten = Array(try JSONSerialization.data(withJSONObject: object, options: options))
            #expect(rewritten != bytes)
            #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: rewritten) == record)
        }
        // By hand: keys reversed, \u escapes for non-ASCII, escaped slashes.
        let text = String(decoding: bytes, as: UTF8.self)
        let escaped = text.replacingOccurrences(of: "é", with: "\\u00e9").replacingOccurrences(of: "/", with: "\\/")
        #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: Array(escaped.utf8)) == record)
        // And JSONEncoder with its own settings produces a record whose canonical checksum is the same.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        let viaEncoder = try JSONSerialization.jsonObject(with: encoder.encode(record))
        var replaced = object
        replaced["record"] = viaEncoder
        #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: Array(JSONSerialization.data(withJSONObject: replaced))) == record)
    }

    @Test("a changed value fails the checksum with recordChecksumMismatch, in the codec and through the store")
    func mismatchIsATypedError() throws {
        let download = try OSSRecordCodecTests.sampleDownload()
        var object = try envelope(try OSSRecordCodec.encode(download))
        var inner = try #require(object["record"] as? [String: Any])
        inner["tempFilePath"] = "/tmp/elsewhere.osstmp"
        object["record"] = inner
        let edited = Array(try JSONSerialization.data(withJSONObject: object))
        #expect(throws: OSSResumableError.recordChecksumMismatch) {
            _ = try OSSRecordCodec.decode(OSSDownloadRecord.self, from: edited)
        }
        try withTemporaryDirectory { dir in
            let store = OSSRecordStore(directoryPath: dir)
            try Data(edited).write(to: URL(fileURLWithPath: store.recordPath(name: "d.download.record")))
            #expect(throws: OSSResumableError.recordChecksumMismatch) {
                _ = try store.load(OSSDownloadRecord.self, name: "d.download.record")
            }
            #expect(store.loadResult(OSSDownloadRecord.self, name: "d.download.record") == .unusable(.recordChecksumMismatch))
        }
    }

    @Test("version 1 records (checksum over the payload text) are still read; a tampered one is refused")
    func versionOneRecords() throws {
        let record = OSSRecordCodecTests.sampleUpload()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let payload = String(decoding: try encoder.encode(record), as: UTF8.self)
        func v1(_ payload: String, checksum: String) throws -> [UInt8] {
            let envelope: [String: Any] = [
                "magic": OSSRecordCodec.magic, "version": 1, "kind": "upload", "checksum": checksum, "payload": payload,
            ]
            return Array(try JSONSerialization.data(withJSONObject: envelope))
        }
        let checksum = OSSRecordCodec.sha256Hex(Array(payload.utf8))
        #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: v1(payload, checksum: checksum)) == record)
        let tampered = payload.replacingOccurrences(of: "\"bucket\":\"bucket\"", with: "\"bucket\":\"other\"")
        #expect(tampered != payload)
        #expect(throws: OSSResumableError.recordChecksumMismatch) {
            _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: v1(tampered, checksum: checksum))
        }
    }
}
