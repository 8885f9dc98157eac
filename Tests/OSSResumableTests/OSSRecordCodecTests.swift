import Foundation
import OSSResumable
import Testing

@Suite("Record codec")
struct OSSRecordCodecTests {
    static func sampleUpload(parts: Int = 3) -> OSSUploadRecord {
        OSSUploadRecord(
            bucket: "bucket",
            key: "dir/ключ with spaces & \"quotes\"",
            filePath: "/tmp/file.bin",
            fileIdentity: makeIdentity(size: 300_000),
            requestedPartSize: 102_400,
            partSize: 102_400,
            crcMode: .enabled,
            uploadId: "0004B9894A22E5B1888A1E29F8236E2D",
            parts: (1...parts).map {
                .init(number: $0, size: $0 == 3 ? 95_200 : 102_400, crc64: UInt64.max - UInt64($0), etag: "\"ETAG\($0)\"")
            }
        )
    }

    static func sampleDownload() throws -> OSSDownloadRecord {
        OSSDownloadRecord(
            bucket: "b",
            key: "k",
            object: OSSObjectIdentity(etag: "\"ABC\"", size: 1000, lastModified: "Mon, 15 Jan 2024 08:30:45 GMT", crc64: 5),
            range: try OSSByteRange(start: 0, length: 1000),
            requestedRange: nil,
            partSize: 65_536,
            crcMode: .enabled,
            destinationPath: "/tmp/d",
            tempFilePath: "/tmp/d.osstmp",
            parts: [.init(number: 1, offset: 0, length: 1000, crc64: 9)]
        )
    }

    @Test("a damaged record still gives its upload id, bucket and key; garbage and odd ids give none")
    func salvage() throws {
        let record = Self.sampleUpload()
        let bytes = try OSSRecordCodec.encode(record)
        // A changed digit: the checksum fails, the JSON still parses.
        var edited = bytes
        let digit = try #require(edited.firstIndex(of: UInt8(ascii: "0")))
        edited[digit] = UInt8(ascii: "1")
        #expect(throws: OSSResumableError.recordChecksumMismatch) { try OSSRecordCodec.decode(OSSUploadRecord.self, from: edited) }
        let fromJSON = OSSRecordCodec.salvage(from: edited)
        #expect(fromJSON.uploadId == record.uploadId)
        #expect(fromJSON.bucket == "bucket")
        #expect(fromJSON.key == record.key)
        #expect(fromJSON.uploadId(forBucket: "bucket", key: record.key) == record.uploadId)
        #expect(fromJSON.uploadId(forBucket: "bucket", key: "another") == nil)
        // No longer JSON: the id is read from the bytes; the key, written with escapes, is not guessed.
        var broken = bytes
        broken[0] = UInt8(ascii: "[")
        let scanned = OSSRecordCodec.salvage(from: broken)
        #expect(scanned.uploadId == record.uploadId)
        #expect(scanned.bucket == "bucket")
        #expect(scanned.key == nil)
        // Cut before the id, garbage, nothing.
        #expect(OSSRecordCodec.salvage(from: Array(bytes.prefix(40))).uploadId == nil)
        #expect(OSSRecordCodec.salvage(from: Array(repeating: 0xFF, count: 300)).uploadId == nil)
        #expect(OSSRecordCodec.salvage(from: []).uploadId == nil)
        // Something that is not an upload id is not taken for one.
        let odd = Array(#"{"record":{"uploadId":"../../etc?x=1"}}"#.utf8)
        #expect(OSSRecordCodec.salvage(from: odd).uploadId == nil)
    }

    @Test func roundTrips() throws {
        let record = Self.sampleUpload()
        let bytes = try OSSRecordCodec.encode(record)
        #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes) == record)
        let download = try Self.sampleDownload()
        #expect(try OSSRecordCodec.decode(OSSDownloadRecord.self, from: OSSRecordCodec.encode(download)) == download)
    }

    @Test func encodingIsDeterministic() throws {
        #expect(try OSSRecordCodec.encode(Self.sampleUpload()) == OSSRecordCodec.encode(Self.sampleUpload()))
    }

    @Test func recordHoldsNoCredentialFields() throws {
        let text = String(decoding: try OSSRecordCodec.encode(Self.sampleUpload()), as: UTF8.self).lowercased()
        for word in ["secret", "token", "accesskey", "signature", "authorization"] {
            #expect(!text.contains(word))
        }
    }

    @Test func everyTruncationIsATypedError() throws {
        let bytes = try OSSRecordCodec.encode(Self.sampleUpload())
        for length in 0..<bytes.count {
            #expect(throws: OSSResumableError.self) {
                _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: Array(bytes[0..<length]))
            }
        }
    }

    @Test func garbageIsCorrupt() {
        for bytes: [UInt8] in [[], [0xFF, 0xFE], Array("null".utf8), Array("[1,2]".utf8), Array("{\"magic\": 5}".utf8)] {
            #expect {
                _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes)
            } throws: { error in
                (error as? OSSResumableError)?.isRecordProblem == true
            }
        }
    }

    @Test func randomBytesAndByteFlipsNeverCrash() throws {
        let bytes = try OSSRecordCodec.encode(Self.sampleUpload())
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                mutated[index] = UInt8.random(in: 0...255, using: &generator)
            }
            do {
                let decoded = try OSSRecordCodec.decode(OSSUploadRecord.self, from: mutated)
                // A flip in insignificant whitespace-free JSON is almost always caught; if not, it changed nothing.
                #expect(decoded == Self.sampleUpload())
            } catch {
                #expect(error.isRecordProblem)
            }
        }
        for length in [1, 7, 100, 4096] {
            let random = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(throws: OSSResumableError.self) { _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: random) }
        }
    }

    /// Rewrites one envelope field of a valid record.
    func editedEnvelope(_ edit: (inout [String: Any]) -> Void) throws -> [UInt8] {
        let bytes = try OSSRecordCodec.encode(Self.sampleUpload())
        var object = try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        edit(&object)
        return Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test func wrongMagic() throws {
        let bytes = try editedEnvelope { $0["magic"] = "something-else" }
        #expect(throws: OSSResumableError.recordWrongMagic) { _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes) }
        let missing = try editedEnvelope { $0["magic"] = nil }
        #expect(throws: OSSResumableError.recordWrongMagic) { _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: missing) }
    }

    @Test func unsupportedVersion() throws {
        let bytes = try editedEnvelope { $0["version"] = 3 }
        #expect(throws: OSSResumableError.recordUnsupportedVersion(3)) {
            _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes)
        }
    }

    @Test func editedPayloadFailsTheChecksum() throws {
        let bytes = try editedEnvelope { envelope in
            var record = envelope["record"] as? [String: Any] ?? [:]
            record["uploadId"] = "0004B9894A22E5B1888A1E29F8236E2E"
            envelope["record"] = record
        }
        #expect(throws: OSSResumableError.recordChecksumMismatch) {
            _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes)
        }
    }

    @Test func foreignKind() throws {
        let download = try OSSRecordCodec.encode(Self.sampleDownload())
        #expect {
            _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: download)
        } throws: { error in
            if case .recordForeign = error as? OSSResumableError { true } else { false }
        }
        // An envelope that lies about the kind of its (valid) payload is foreign too.
        let lying = try editedEnvelope { $0["kind"] = "download" }
        #expect {
            _ = try OSSRecordCodec.decode(OSSDownloadRecord.self, from: lying)
        } throws: { error in
            (error as? OSSResumableError)?.isRecordProblem == true
        }
    }

    @Test func semanticallyBrokenRecordIsCorrupt() throws {
        var record = Self.sampleUpload()
        record.parts = [.init(number: 2, size: 1, crc64: nil, etag: "a"), .init(number: 1, size: 1, crc64: nil, etag: "b")]
        let bytes = try OSSRecordCodec.encode(record)
        #expect {
            _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: bytes)
        } throws: { error in
            if case .recordCorrupt = error as? OSSResumableError { true } else { false }
        }
        var empty = Self.sampleUpload()
        empty.uploadId = ""
        #expect(throws: OSSResumableError.self) {
            _ = try OSSRecordCodec.decode(OSSUploadRecord.self, from: OSSRecordCodec.encode(empty))
        }
    }
}
