import OSSCRC64
import OSSResumable
import Testing

/// The checkpoint journal: entries that survive only whole, and claims a resume takes in only when they lie on the
/// record's plan, go beyond it and belong to the same object version.
@Suite("OSSDownloadJournal: entries and claims")
struct OSSDownloadJournalTests {
    let fixture = DownloadFixture()

    /// Part 1 complete, part 3 with a 10,000-byte prefix (parts of 102,400 bytes over 250,000).
    func record() -> OSSDownloadRecord {
        var machine = DLMachine(configuration: fixture.configuration())
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        _ = machine.handle(.partDownloaded(number: 1, crc64: fixture.crc(parts[0])))
        return dlLastRecord(machine.handle(.partProgressed(number: 3, bytes: 10_000, crc64: fixture.crc(parts[2].offset, 10_000))))!
    }

    func entry(_ number: Int, offset: Int64, bytes: Int64, sequence: UInt64 = 1, identity: UInt64? = nil, crc64: UInt64? = nil)
        -> OSSDownloadJournal.Entry
    {
        OSSDownloadJournal.Entry(
            identity: identity ?? record().journalIdentity, sequence: sequence, number: number, offset: offset,
            bytes: bytes, crc64: crc64 ?? fixture.crc(offset, bytes))
    }

    @Test("an entry round-trips; a torn, altered or blank one is not an entry")
    func codec() {
        let original = entry(2, offset: 102_400, bytes: 65_536, sequence: 1_234_567)
        let bytes = OSSDownloadJournal.encode(original)
        #expect(bytes.count == OSSDownloadJournal.entryLength)
        #expect(OSSDownloadJournal.decode(bytes[...]) == original)
        #expect(OSSDownloadJournal.decode(bytes.dropLast()) == nil)
        for index in [0, 5, 20, 30, 47, 59] {
            var altered = bytes
            altered[index] ^= 0x01
            #expect(OSSDownloadJournal.decode(altered[...]) == nil, "byte \(index) altered")
        }
        #expect(OSSDownloadJournal.decode([UInt8](repeating: 0, count: OSSDownloadJournal.entryLength)[...]) == nil)
        // A file holding entries, a hole and a torn entry at its end: only the intact ones.
        let second = entry(3, offset: 204_800, bytes: 20_000, sequence: 1_234_568)
        let file = bytes + [UInt8](repeating: 0, count: OSSDownloadJournal.entryLength) + OSSDownloadJournal.encode(second)
            + OSSDownloadJournal.encode(original).prefix(30)
        #expect(OSSDownloadJournal.entries(in: file) == [original, second])
        #expect(OSSDownloadJournal.fileOffset(ofSequence: 5) == 5 * 60)
        #expect(OSSDownloadJournal.fileOffset(ofSequence: UInt64(OSSDownloadJournal.capacity) + 2) == 2 * 60)
    }

    @Test("only spans of this object version, inside a part and past the record are worth checking; the longest per start")
    func spans() {
        let record = record()
        let entries = [
            entry(1, offset: 0, bytes: 102_400),  // part 1 is complete in the record
            entry(2, offset: 102_400, bytes: 40_000, sequence: 1),
            entry(2, offset: 102_400, bytes: 102_400, sequence: 2),  // part 2 whole: the longest from its start
            entry(2, offset: 102_400, bytes: 60_000, sequence: 3),  // a later attempt's shorter checkpoint
            entry(2, offset: 150_000, bytes: 20_000, sequence: 4),  // a resumed fetch, from inside the part
            entry(3, offset: 204_800, bytes: 8_000),  // short of the record's 10,000
            entry(3, offset: 204_800, bytes: 30_000, identity: 42),  // another object version
            entry(3, offset: 204_800, bytes: 45_200, crc64: 7),  // the whole last part (45,200 bytes)
            entry(3, offset: 204_000, bytes: 20_000),  // starts in part 2: not a span of part 3
            OSSDownloadJournal.Entry(
                identity: record.journalIdentity, sequence: 9, number: 3, offset: 204_800, bytes: 45_201, crc64: 1),
            OSSDownloadJournal.Entry(
                identity: record.journalIdentity, sequence: 9, number: 4, offset: 307_200, bytes: 1, crc64: 1),
        ]
        let spans = record.journalSpans(entries)
        #expect(spans.map(\.number) == [2, 2, 3])
        #expect(spans[0] == .init(number: 2, fileOffset: 102_400, bytes: 102_400, crc64: fixture.crc(102_400, 102_400)))
        #expect(spans[1] == .init(number: 2, fileOffset: 150_000, bytes: 20_000, crc64: fixture.crc(150_000, 20_000)))
        #expect(spans[2].bytes == 45_200 && spans[2].crc64 == 7)
    }

    @Test("verified spans chain from the record's claim: a gap stops the prefix, an overlap extends it")
    func reach() {
        let record = record()  // part 3: 10,000 bytes claimed
        let spans: [OSSDownloadRecord.JournalSpan] = [
            // Part 2: nothing recorded; a first fetch wrote 50,000 bytes, a resumed one 30,000 from byte 40,000.
            .init(number: 2, fileOffset: 102_400, bytes: 50_000, crc64: 0),
            .init(number: 2, fileOffset: 142_400, bytes: 30_000, crc64: 0),
            // Part 3: a span from 5,000 (inside the claim) to 25,000, and one after a gap.
            .init(number: 3, fileOffset: 209_800, bytes: 20_000, crc64: 0),
            .init(number: 3, fileOffset: 234_800, bytes: 1_000, crc64: 0),
        ]
        #expect(record.journalReach(spans) == [2: 70_000, 3: 25_000])
        // Spans that start after the prefix's end reach nothing.
        #expect(record.journalReach([.init(number: 2, fileOffset: 102_401, bytes: 100, crc64: 0)]).isEmpty)
        #expect(record.journalFileOffset(ofPart: 3) == 204_800)
        #expect(record.journalFileOffset(ofPart: 4) == nil)
    }

    @Test("adopted prefixes complete a part or lengthen its prefix; the record stays valid and resumes")
    func adopting() throws {
        var record = record()
        record.unsynced = [3]
        let adopted = record.adopting([
            .init(number: 2, fileOffset: 102_400, bytes: 102_400, crc64: fixture.crc(102_400, 102_400)),
            .init(number: 3, fileOffset: 204_800, bytes: 30_000, crc64: fixture.crc(204_800, 30_000)),
        ])
        try adopted.validate()
        #expect(adopted.parts.map(\.number) == [1, 2])
        #expect(adopted.parts[1].crc64 == fixture.crc(102_400, 102_400))
        #expect(adopted.partials == [.init(number: 3, offset: 204_800, bytes: 30_000, crc64: fixture.crc(204_800, 30_000))])
        #expect(adopted.unsynced.isEmpty)
        #expect(adopted.bytesDone == 102_400 + 102_400 + 30_000)
        // The adopted record resumes like any other: part 3 from byte 30,000, part 2 not at all.
        var machine = DLMachine(configuration: fixture.configuration())
        let again = dlDownloads(
            machine.handle(.start(record: .loaded(adopted), object: fixture.object, recordedTempFileSize: 250_000)))
        #expect(again.map(\.number) == [3])
        #expect(again.first.map(\.offset) == Int64(234_800))
        #expect(machine.resumedBytes == 234_800)
    }
}
