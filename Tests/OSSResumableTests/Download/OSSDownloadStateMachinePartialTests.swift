import OSSCRC64
import OSSResumable
import Testing

@Suite("OSSDownloadStateMachine: byte-granular resume (partial parts)")
struct OSSDownloadStateMachinePartialTests {
    let fixture = DownloadFixture()

    /// The CRC-64 of object bytes `[offset, offset + count)`.
    func crc(_ offset: Int64, _ count: Int64) -> UInt64 {
        CRC64.checksum(Array(fixture.data[Int(offset)..<Int(offset + count)]))
    }

    /// A fresh download where part 1 finished and parts 2 and 3 reported checkpoints of `bytes2` and `bytes3`.
    func checkpointed(bytes2: Int64, bytes3: Int64) -> (DLMachine, OSSDownloadRecord) {
        var machine = DLMachine(configuration: fixture.configuration())
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        _ = machine.handle(.partDownloaded(number: 1, crc64: fixture.crc(parts[0])))
        _ = machine.handle(.partProgressed(number: 2, bytes: bytes2, crc64: crc(parts[1].offset, bytes2)))
        let last = dlLastRecord(machine.handle(.partProgressed(number: 3, bytes: bytes3, crc64: crc(parts[2].offset, bytes3))))
        return (machine, last!)
    }

    @Test("a checkpoint records the part's written prefix and its CRC-64; a finished part drops it")
    func checkpointRecorded() throws {
        let (machine, record) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        #expect(record.parts.map(\.number) == [1])
        #expect(record.partials == [
            .init(number: 2, offset: 102_400, bytes: 30_000, crc64: crc(102_400, 30_000)),
            .init(number: 3, offset: 204_800, bytes: 10_000, crc64: crc(204_800, 10_000)),
        ])
        #expect(record.bytesDone == 102_400 + 40_000)
        try record.validate()
        var finishing = machine
        let actions = finishing.handle(.partDownloaded(number: 2, crc64: fixture.crc(OSSPart(number: 2, offset: 102_400, length: 102_400))))
        #expect(dlLastRecord(actions)?.partials.map(\.number) == [3])
    }

    @Test("a checkpoint that does not grow the prefix, reaches the part's end or names no part in flight is ignored")
    func staleCheckpoints() {
        var (machine, _) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        #expect(machine.handle(.partProgressed(number: 2, bytes: 20_000, crc64: 1)).isEmpty)
        #expect(machine.handle(.partProgressed(number: 2, bytes: 102_400, crc64: 1)).isEmpty)
        #expect(machine.handle(.partProgressed(number: 1, bytes: 50_000, crc64: 1)).isEmpty)
        #expect(machine.handle(.partProgressed(number: 9, bytes: 50_000, crc64: 1)).isEmpty)
        #expect(machine.record?.partials.map(\.bytes) == [30_000, 10_000])
    }

    @Test("without a record directory a checkpoint saves nothing but still counts for a pause's token")
    func checkpointWithoutRecords() {
        var machine = DLMachine(configuration: fixture.configuration(record: false))
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        #expect(machine.handle(.partProgressed(number: 1, bytes: 5_000, crc64: crc(parts[0].offset, 5_000))).isEmpty)
        #expect(machine.record?.partials.map(\.bytes) == [5_000])
    }

    @Test("resume fetches a partial part from its first missing byte; the prefix CRC combines into the object's")
    func resumeFromFirstMissingByte() throws {
        let (_, stored) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        var machine = DLMachine(configuration: fixture.configuration())
        let actions = machine.handle(
            .start(record: .loaded(stored), object: fixture.object, recordedTempFileSize: DownloadFixture.size))
        let fetches = dlDownloads(actions)
        #expect(fetches == [
            OSSPart(number: 2, offset: 132_400, length: 72_400), OSSPart(number: 3, offset: 214_800, length: 35_200),
        ])
        #expect(machine.resumedBytes == 142_400)
        #expect(actions.first == .reportProgress(bytesReceived: 142_400, totalBytesReceived: 142_400, totalBytesExpected: 250_000))
        // The resumed fetch of part 2 checkpoints too: bytes and CRC past the recorded prefix.
        let progressed = dlLastRecord(machine.handle(.partProgressed(number: 2, bytes: 2_000, crc64: crc(132_400, 2_000))))
        #expect(progressed?.partials.first == .init(number: 2, offset: 102_400, bytes: 32_000, crc64: crc(102_400, 32_000)))
        _ = machine.handle(.partDownloaded(number: 3, crc64: crc(214_800, 35_200)))
        let end = machine.handle(.partDownloaded(number: 2, crc64: crc(132_400, 72_400)))
        #expect(dlFinished(end) == CRC64.checksum(fixture.data))
        #expect(machine.record?.parts.map(\.crc64) == [fixture.crc(OSSPart(number: 1, offset: 0, length: 102_400)), crc(102_400, 102_400), crc(204_800, 45_200)])
    }

    @Test("a wrong prefix CRC in the record is caught by the whole-object CRC check, never committed")
    func wrongPrefixCRC() {
        var (_, stored) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        stored.partials[0] = .init(number: 2, offset: 102_400, bytes: 30_000, crc64: 12345)
        var machine = DLMachine(configuration: fixture.configuration())
        _ = machine.handle(.start(record: .loaded(stored), object: fixture.object, recordedTempFileSize: DownloadFixture.size))
        _ = machine.handle(.partDownloaded(number: 3, crc64: crc(214_800, 35_200)))
        let end = machine.handle(.partDownloaded(number: 2, crc64: crc(132_400, 72_400)))
        #expect(!end.contains { if case .commitTempFile = $0 { true } else { false } })
        guard case .error(.crcMismatch)? = dlFailure(end) else {
            Issue.record("expected crcMismatch, got \(end)")
            return
        }
    }

    @Test("partial parts that do not fit the plan are ignored on resume (the whole part is fetched)")
    func misfitPartialsIgnored() {
        var (_, stored) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        stored.partials = [
            .init(number: 2, offset: 100_000, bytes: 30_000, crc64: 1),  // wrong offset
            .init(number: 3, offset: 204_800, bytes: 45_200, crc64: 1),  // the whole part
        ]
        var machine = DLMachine(configuration: fixture.configuration())
        let fetches = dlDownloads(machine.handle(
            .start(record: .loaded(stored), object: fixture.object, recordedTempFileSize: DownloadFixture.size)))
        #expect(fetches.map(\.offset) == [102_400, 204_800])
        #expect(machine.resumedBytes == 102_400)
    }

    @Test("validate refuses partial parts that overlap completed ones, repeat, or lie outside the range")
    func validation() {
        let (_, good) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        var bad: [OSSDownloadRecord] = []
        var record = good
        record.partials = [.init(number: 1, offset: 0, bytes: 10, crc64: 0)]  // part 1 is completed
        bad.append(record)
        record = good
        record.partials = [.init(number: 2, offset: 102_400, bytes: 10, crc64: 0), .init(number: 2, offset: 102_400, bytes: 20, crc64: 0)]
        bad.append(record)
        record = good
        record.partials = [.init(number: 3, offset: 204_800, bytes: 0, crc64: 0)]
        bad.append(record)
        record = good
        record.partials = [.init(number: 3, offset: 249_000, bytes: 5_000, crc64: 0)]
        bad.append(record)
        for record in bad {
            #expect(throws: OSSResumableError.self) { try record.validate() }
        }
    }

    @Test("records with partial parts round-trip through the codec; records without them encode as before")
    func codec() throws {
        let (_, record) = checkpointed(bytes2: 30_000, bytes3: 10_000)
        let decoded = try OSSRecordCodec.decode(OSSDownloadRecord.self, from: OSSRecordCodec.encode(record))
        #expect(decoded == record)
        var plain = record
        plain.partials = []
        let text = String(decoding: try OSSRecordCodec.encode(plain), as: UTF8.self)
        #expect(!text.contains("partial"))
        #expect(try OSSRecordCodec.decode(OSSDownloadRecord.self, from: Array(text.utf8)) == plain)
    }
}
