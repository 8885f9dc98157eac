import OSSCRC64
import OSSResumable
import Testing

/// Records that claim bytes not yet synced: the claims are checked against the temporary file at resume.
@Suite("OSSDownloadRecord: unsynced claims")
struct OSSDownloadRecordUnsyncedTests {
    let fixture = DownloadFixture()

    /// Parts 1 and 2 complete, part 3 with a 10,000-byte prefix; parts 2 and 3 unsynced.
    func record() -> OSSDownloadRecord {
        var machine = DLMachine(configuration: fixture.configuration())
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        _ = machine.handle(.partDownloaded(number: 1, crc64: fixture.crc(parts[0])))
        _ = machine.handle(.partDownloaded(number: 2, crc64: fixture.crc(parts[1])))
        var record = dlLastRecord(machine.handle(.partProgressed(number: 3, bytes: 10_000, crc64: fixture.crc(parts[2].offset, 10_000))))!
        record.unsynced = [3, 2]
        return record
    }

    @Test("claims whose bytes are in the file are kept; a part or prefix that does not match is dropped")
    func verification() throws {
        let record = record()
        try record.validate()
        #expect(record.unsynced == [2, 3])
        // The file holds the object's bytes, except that part 2's were lost (zeros after a power cut).
        let kept = record.verifyingUnsynced { offset, length in
            offset == 102_400 ? CRC64.checksum([UInt8](repeating: 0, count: Int(length))) : fixture.crc(offset, length)
        }
        #expect(kept.dropped == [2])
        #expect(kept.record.parts.map(\.number) == [1])
        #expect(kept.record.partials.map(\.number) == [3])
        #expect(kept.record.unsynced.isEmpty)
        try kept.record.validate()
        // Unreadable bytes are not trusted either; synced claims (part 1) are never read.
        var read: [Int64] = []
        let unreadable = record.verifyingUnsynced { offset, _ in
            read.append(offset)
            return nil
        }
        #expect(unreadable.dropped == [2, 3])
        #expect(unreadable.record.parts.map(\.number) == [1])
        #expect(unreadable.record.partials.isEmpty)
        #expect(read.sorted() == [102_400, 204_800])
    }

    @Test("an unsynced number that the record does not claim makes it corrupt; the field survives the codec")
    func validationAndCodec() throws {
        var record = record()
        let decoded = try OSSRecordCodec.decode(OSSDownloadRecord.self, from: OSSRecordCodec.encode(record))
        #expect(decoded.unsynced == [2, 3])
        record.unsynced = [7]
        #expect(throws: OSSResumableError.self) { try record.validate() }
    }
}
