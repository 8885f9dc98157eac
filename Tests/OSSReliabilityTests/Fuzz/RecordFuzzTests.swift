import Foundation
import OSSResumable
import OSSTestSupport
import Testing

/// Seeded fuzzing of the checkpoint decoder: random bytes, truncated and bit-flipped valid records.
@Suite("Fuzz: checkpoint record decoder and store")
struct RecordFuzzTests {
    static let identity = OSSFileIdentity(
        size: 10_485_760, modificationTimeNanoseconds: 1_700_000_000_123_456_789, inode: 42, device: 7,
        fingerprint: OSSFileFingerprint(samples: [.init(offset: 0, length: 65_536, crc64: 99)]))

    static let upload = OSSUploadRecord(
        bucket: "bkt", key: "dir/\u{1F600} key", filePath: "/tmp/source.bin", fileIdentity: identity,
        requestedPartSize: 1_048_576, partSize: 1_048_576, crcMode: .enabled, uploadId: "0004B999EF5A239BB9138C6227D69F95",
        parts: [
            .init(number: 1, size: 1_048_576, crc64: 123, etag: "\"3349DC700140D7F86A0784842780A8C6\""),
            .init(number: 3, size: 1_048_576, crc64: nil, etag: "\"7265F4D211B56873A381D321F586E4A9\""),
        ])

    static func download() throws -> OSSDownloadRecord {
        OSSDownloadRecord(
            bucket: "bkt", key: "obj", object: OSSObjectIdentity(etag: "\"ABC\"", size: 5000, lastModified: nil, crc64: 77),
            range: try OSSByteRange(start: 0, length: 5000), requestedRange: nil, partSize: 1000, crcMode: .enabled,
            destinationPath: "/tmp/out.bin", tempFilePath: "/tmp/out.bin.tmp",
            parts: [.init(number: 1, offset: 0, length: 1000, crc64: 5), .init(number: 2, offset: 1000, length: 1000, crc64: 6)])
    }

    @Test("mutated and random records decode to the original or fail with a record error")
    func codecFuzz() throws {
        let download = try Self.download()
        let uploadBytes = try OSSRecordCodec.encode(Self.upload)
        let downloadBytes = try OSSRecordCodec.encode(download)
        #expect(try OSSRecordCodec.decode(OSSUploadRecord.self, from: uploadBytes) == Self.upload)
        #expect(try OSSRecordCodec.decode(OSSDownloadRecord.self, from: downloadBytes) == download)
        runFuzz("record-codec", seed: ReliabilityScale.seed(0x5245_4300), count: ReliabilityScale.count(20_000)) { rng, _ in
            let input: [UInt8]
            switch rng.below(8) {
            case 0: input = rng.bytes(rng.below(512))
            case 1: input = Array((rng.chance(1, in: 2) ? uploadBytes : downloadBytes).prefix(rng.below(uploadBytes.count)))
            default:
                input = Mutator.mutate(
                    rng.chance(1, in: 2) ? uploadBytes : downloadBytes, &rng,
                    extraTokens: ["\"version\":2", "\"kind\":\"download\"", "\\u0000", "1e400", "-0", "null", "[]", "{}"])
            }
            var accepted = false
            do {
                let record = try OSSRecordCodec.decode(OSSUploadRecord.self, from: input)
                #expect(record == Self.upload, "a damaged record decoded to something else")
                accepted = true
            } catch {
                // Typed: OSSResumableError (the signature guarantees it); nothing else to check.
            }
            do {
                let record = try OSSRecordCodec.decode(OSSDownloadRecord.self, from: input)
                #expect(record == download, "a damaged record decoded to something else")
                accepted = true
            } catch {}
            return accepted ? .accepted : .rejected
        }
    }

    @Test("the record store refuses damaged files on disk without trapping")
    func storeFuzz() throws {
        let directory = NSTemporaryDirectory() + "oss-reliability-records-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = OSSRecordStore(directoryPath: OSSRecordStore.absolutePath(directory))
        try store.save(Self.upload, name: "fuzz.upload.record")
        let valid = try Data(contentsOf: URL(fileURLWithPath: store.recordPath(name: "fuzz.upload.record")))
        #expect(try store.load(OSSUploadRecord.self, name: "fuzz.upload.record") == Self.upload)
        runFuzz("record-store", seed: ReliabilityScale.seed(0x5354_4F00), count: ReliabilityScale.count(2_000)) { rng, _ in
            let bytes = rng.chance(1, in: 5) ? rng.bytes(rng.below(256)) : Mutator.mutate(Array(valid), &rng)
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: store.recordPath(name: "fuzz.upload.record")))
            } catch {
                Issue.record("cannot write the fuzz record: \(error)")
                return .rejected
            }
            switch store.loadResult(OSSUploadRecord.self, name: "fuzz.upload.record") {
            case .loaded(let record):
                #expect(record == Self.upload)
                return .accepted
            case .none:
                Issue.record("an existing record file was reported absent")
                return .rejected
            case .unusable:
                return .rejected
            }
        }
    }
}
