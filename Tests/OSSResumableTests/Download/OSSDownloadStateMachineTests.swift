import OSSCRC64
import OSSResumable
import OSSTestSupport
import Testing

typealias DLMachine = OSSDownloadStateMachine
typealias DLAction = OSSDownloadStateMachine.Action

/// A 250,000-byte object downloaded in parts of 102,400: 102,400 + 102,400 + 45,200.
struct DownloadFixture {
    static let size: Int64 = 250_000
    let data = patternBytes(Int(DownloadFixture.size), seed: 99)
    var object: OSSObjectIdentity {
        OSSObjectIdentity(
            etag: "\"ETAG-1\"", size: DownloadFixture.size, lastModified: "Sat, 21 Nov 2026 10:00:00 GMT",
            crc64: CRC64.checksum(data))
    }

    func configuration(
        range: OSSRequestedRange? = nil, policy: DLMachine.ObjectChangedPolicy = .fail, record: Bool = true,
        crc: OSSCRCMode = .enabled
    ) -> DLMachine.Configuration {
        .init(
            bucket: "b", key: "k", destinationPath: "/tmp/dest.bin", tempFilePath: "/tmp/dest.bin.osstmp-1",
            requestedRange: range, requestedPartSize: 102_400, crcMode: crc, onObjectChanged: policy,
            persistsRecord: record)
    }

    /// The CRC-64 of the object bytes of `part`.
    func crc(_ part: OSSPart) -> UInt64 {
        crc(part.offset, part.length)
    }

    /// The CRC-64 of `count` object bytes from `offset`.
    func crc(_ offset: Int64, _ count: Int64) -> UInt64 {
        CRC64.checksum(Array(data[Int(offset)..<Int(offset + count)]))
    }
}

func dlDownloads(_ actions: [DLAction]) -> [OSSPart] {
    actions.flatMap { action -> [OSSPart] in
        if case .downloadParts(_, _, _, _, let parts) = action { return parts }
        return []
    }
}

func dlFailure(_ actions: [DLAction]) -> DLMachine.Failure? {
    for case .fail(let failure) in actions { return failure }
    return nil
}

func dlFinished(_ actions: [DLAction]) -> UInt64? {
    for case .finish(let crc) in actions { return crc }
    return nil
}

func dlLastRecord(_ actions: [DLAction]) -> OSSDownloadRecord? {
    var last: OSSDownloadRecord?
    for case .writeRecord(let record) in actions { last = record }
    return last
}

@Suite("OSSDownloadStateMachine")
struct OSSDownloadStateMachineTests {
    let fixture = DownloadFixture()

    /// Runs a fresh download, completing the parts in `order` (by number), and returns every action.
    func completeParts(_ machine: inout DLMachine, parts: [OSSPart], order: [Int]) -> [DLAction] {
        var all: [DLAction] = []
        for number in order {
            let part = parts[number - 1]
            all += machine.handle(.partDownloaded(number: number, crc64: fixture.crc(part)))
        }
        return all
    }

    @Test("fresh start: temp file sized to the range, record, all parts with If-Match on the ETag")
    func freshStart() {
        var machine = DLMachine(configuration: fixture.configuration())
        let actions = machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(actions.first == .prepareTempFile(path: "/tmp/dest.bin.osstmp-1", length: DownloadFixture.size))
        #expect(dlLastRecord(actions)?.parts == [])
        guard case .downloadParts(let etag, _, let start, let path, let parts)? = actions.last else {
            Issue.record("expected downloadParts last, got \(actions)")
            return
        }
        #expect(etag == "\"ETAG-1\"")
        #expect(start == 0)
        #expect(path == "/tmp/dest.bin.osstmp-1")
        #expect(parts.map(\.length) == [102_400, 102_400, 45_200])
        #expect(parts.map(\.offset) == [0, 102_400, 204_800])
    }

    @Test("parts in any order: a record after each, progress monotonic, combined CRC checked, then commit")
    func completesOutOfOrder() throws {
        var machine = DLMachine(configuration: fixture.configuration())
        let start = machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        let parts = dlDownloads(start)
        let actions = completeParts(&machine, parts: parts, order: [3, 1, 2])
        let records = actions.compactMap { action -> OSSDownloadRecord? in
            if case .writeRecord(let record) = action { return record }
            return nil
        }
        #expect(records.map { $0.parts.map(\.number) } == [[3], [1, 3], [1, 2, 3]])
        let totals = actions.compactMap { action -> Int64? in
            if case .reportProgress(_, let total, let expected) = action {
                #expect(expected == DownloadFixture.size)
                return total
            }
            return nil
        }
        #expect(totals == [45_200, 147_600, 250_000])
        let commitIndex = try #require(actions.firstIndex(of: .commitTempFile(from: "/tmp/dest.bin.osstmp-1", to: "/tmp/dest.bin")))
        let deleteIndex = try #require(actions.firstIndex(of: .deleteRecord))
        #expect(commitIndex < deleteIndex)
        #expect(dlFinished(actions) == CRC64.checksum(fixture.data))
        #expect(machine.isFinished)
    }

    @Test("a wrong part CRC makes the combined CRC differ: crcMismatch, temp file and record removed")
    func crcMismatch() {
        var machine = DLMachine(configuration: fixture.configuration())
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        _ = machine.handle(.partDownloaded(number: 1, crc64: fixture.crc(parts[0])))
        _ = machine.handle(.partDownloaded(number: 2, crc64: fixture.crc(parts[1]) ^ 1))
        let actions = machine.handle(.partDownloaded(number: 3, crc64: fixture.crc(parts[2])))
        #expect(actions.contains(.deleteTempFile(path: "/tmp/dest.bin.osstmp-1")))
        #expect(actions.contains(.deleteRecord))
        #expect(!actions.contains { if case .commitTempFile = $0 { true } else { false } })
        guard case .error(.crcMismatch)? = dlFailure(actions) else {
            Issue.record("expected crcMismatch, got \(actions)")
            return
        }
    }

    @Test("CRC mode disabled: no combined check")
    func crcDisabled() {
        var machine = DLMachine(configuration: fixture.configuration(crc: .disabled))
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        _ = machine.handle(.partDownloaded(number: 1, crc64: 1))
        _ = machine.handle(.partDownloaded(number: 2, crc64: 2))
        let actions = machine.handle(.partDownloaded(number: 3, crc64: fixture.crc(parts[2])))
        #expect(dlFinished(actions) != nil)
    }

    @Test("a sub-range is planned from its first byte and never CRC-checked against the whole object")
    func subRange() {
        var machine = DLMachine(configuration: fixture.configuration(range: OSSRequestedRange(first: 1000, last: 205_000)))
        let start = machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(start.first == .prepareTempFile(path: "/tmp/dest.bin.osstmp-1", length: 204_001))
        guard case .downloadParts(_, _, let rangeStart, _, let parts)? = start.last else {
            Issue.record("expected downloadParts")
            return
        }
        #expect(rangeStart == 1000)
        #expect(parts.map(\.offset) == [1000, 103_400])
        #expect(parts.map(\.length) == [102_400, 101_601])
        var last: [DLAction] = []
        for part in parts { last = machine.handle(.partDownloaded(number: part.number, crc64: 12345)) }
        #expect(dlFinished(last) != nil)
    }

    @Test("an empty object: no parts, an empty temp file, committed at once")
    func emptyObject() {
        var machine = DLMachine(configuration: fixture.configuration())
        let empty = OSSObjectIdentity(etag: "\"E\"", size: 0, lastModified: nil, crc64: 0)
        let actions = machine.handle(.start(record: .none, object: empty, recordedTempFileSize: nil))
        #expect(actions.first == .prepareTempFile(path: "/tmp/dest.bin.osstmp-1", length: 0))
        #expect(dlDownloads(actions).isEmpty)
        #expect(actions.contains(.commitTempFile(from: "/tmp/dest.bin.osstmp-1", to: "/tmp/dest.bin")))
        #expect(dlFinished(actions) == 0)
    }

    @Test("a range starting past the object fails with invalidArgument before touching files")
    func rangePastEnd() {
        var machine = DLMachine(configuration: fixture.configuration(range: OSSRequestedRange(first: 250_000, last: nil)))
        let actions = machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(actions.count == 1)
        guard case .error(.invalidArgument)? = dlFailure(actions) else {
            Issue.record("expected invalidArgument, got \(actions)")
            return
        }
    }
}
