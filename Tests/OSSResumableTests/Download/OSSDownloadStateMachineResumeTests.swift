import OSSCRC64
import OSSResumable
import Testing

@Suite("OSSDownloadStateMachine: resume, changes, failures")
struct OSSDownloadStateMachineResumeTests {
    let fixture = DownloadFixture()

    /// The record after parts `done` of a fresh download.
    func record(after done: [Int], configuration: DLMachine.Configuration? = nil) -> OSSDownloadRecord {
        var machine = DLMachine(configuration: configuration ?? fixture.configuration())
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        var last: OSSDownloadRecord?
        for number in done {
            last = dlLastRecord(machine.handle(.partDownloaded(number: number, crc64: fixture.crc(parts[number - 1]))))
        }
        return last ?? machine.record!
    }

    @Test("resume: only the missing parts, progress starts from the bytes on disk, final CRC covers all parts")
    func resumeMissingParts() {
        let stored = record(after: [1, 3])
        var machine = DLMachine(configuration: fixture.configuration())
        let actions = machine.handle(
            .start(record: .loaded(stored), object: fixture.object, recordedTempFileSize: DownloadFixture.size))
        #expect(!actions.contains { if case .prepareTempFile = $0 { true } else { false } })
        #expect(dlDownloads(actions).map(\.number) == [2])
        #expect(actions.first == .reportProgress(bytesReceived: 147_600, totalBytesReceived: 147_600, totalBytesExpected: 250_000))
        #expect(machine.resumedBytes == 147_600)
        let part2 = dlDownloads(actions)[0]
        let end = machine.handle(.partDownloaded(number: 2, crc64: fixture.crc(part2)))
        #expect(dlFinished(end) == CRC64.checksum(fixture.data))
    }

    @Test("resume with every part done: straight to the CRC check and the commit")
    func resumeAllDone() {
        let stored = record(after: [1, 2])
        var full = stored
        full.parts.append(.init(number: 3, offset: 204_800, length: 45_200, crc64: fixture.crc(OSSPart(number: 3, offset: 204_800, length: 45_200))))
        var machine = DLMachine(configuration: fixture.configuration())
        let actions = machine.handle(
            .start(record: .loaded(full), object: fixture.object, recordedTempFileSize: DownloadFixture.size))
        #expect(dlDownloads(actions).isEmpty)
        #expect(dlFinished(actions) == CRC64.checksum(fixture.data))
    }

    @Test("the object changed since the record: fail policy → objectChanged after removing everything")
    func changedSinceRecordFail() {
        let stored = record(after: [1])
        let changed = OSSObjectIdentity(etag: "\"ETAG-2\"", size: DownloadFixture.size, lastModified: "later", crc64: 1)
        var machine = DLMachine(configuration: fixture.configuration(policy: .fail))
        let actions = machine.handle(.start(record: .loaded(stored), object: changed, recordedTempFileSize: DownloadFixture.size))
        #expect(actions.contains(.deleteTempFile(path: stored.tempFilePath)))
        #expect(actions.contains { if case .discardRecord = $0 { true } else { false } })
        #expect(dlDownloads(actions).isEmpty)
        guard case .error(.objectChanged)? = dlFailure(actions) else {
            Issue.record("expected objectChanged, got \(actions)")
            return
        }
    }

    @Test("the object changed since the record: restartOnce → a fresh download of the new object")
    func changedSinceRecordRestart() {
        let stored = record(after: [1, 2])
        let changed = OSSObjectIdentity(etag: "\"ETAG-2\"", size: 120_000, lastModified: "later", crc64: nil)
        var machine = DLMachine(configuration: fixture.configuration(policy: .restartOnce))
        let actions = machine.handle(.start(record: .loaded(stored), object: changed, recordedTempFileSize: DownloadFixture.size))
        #expect(actions.contains(.prepareTempFile(path: "/tmp/dest.bin.osstmp-1", length: 120_000)))
        #expect(dlDownloads(actions).map(\.length) == [102_400, 17_600])
        guard case .downloadParts(let etag, _, _, _, _)? = actions.last else {
            Issue.record("expected downloadParts")
            return
        }
        #expect(etag == "\"ETAG-2\"")
    }

    @Test("a missing or resized temporary file: discard the record and start fresh", arguments: [nil, Int64(1000)])
    func tempFileAltered(size: Int64?) {
        let stored = record(after: [1, 2])
        var machine = DLMachine(configuration: fixture.configuration())
        let actions = machine.handle(.start(record: .loaded(stored), object: fixture.object, recordedTempFileSize: size))
        #expect(actions.contains { if case .discardRecord(.tempFileAltered) = $0 { true } else { false } })
        #expect(actions.contains(.prepareTempFile(path: "/tmp/dest.bin.osstmp-1", length: DownloadFixture.size)))
        #expect(dlDownloads(actions).count == 3)
        #expect(machine.resumedBytes == 0)
    }

    @Test("an unusable or foreign record: logged discard and a fresh start, never a failure")
    func unusableRecord() {
        var machine = DLMachine(configuration: fixture.configuration())
        let actions = machine.handle(.start(record: .unusable(.recordChecksumMismatch), object: fixture.object, recordedTempFileSize: nil))
        #expect(actions.first == .discardRecord(reason: .recordChecksumMismatch))
        #expect(dlDownloads(actions).count == 3)

        let foreign = record(after: [1], configuration: fixture.configuration(range: OSSRequestedRange(first: 5, last: nil)))
        var other = DLMachine(configuration: fixture.configuration())
        let second = other.handle(.start(record: .loaded(foreign), object: fixture.object, recordedTempFileSize: DownloadFixture.size))
        #expect(second.contains { if case .discardRecord(.recordForeign) = $0 { true } else { false } })
        #expect(dlDownloads(second).count == 3)
    }

    @Test("412 mid-download: fail policy → everything removed, objectChanged")
    func preconditionFailedFail() {
        var machine = DLMachine(configuration: fixture.configuration(policy: .fail))
        _ = machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        _ = machine.handle(.partDownloaded(number: 1, crc64: 1))
        let actions = machine.handle(.objectChanged)
        #expect(actions.contains(.deleteTempFile(path: "/tmp/dest.bin.osstmp-1")))
        #expect(actions.contains(.deleteRecord))
        guard case .error(.objectChanged)? = dlFailure(actions) else {
            Issue.record("expected objectChanged, got \(actions)")
            return
        }
    }

    @Test("412 mid-download: restartOnce → HEAD, fresh plan; a second 412 fails")
    func preconditionFailedRestartOnce() {
        var machine = DLMachine(configuration: fixture.configuration(policy: .restartOnce))
        _ = machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        _ = machine.handle(.partDownloaded(number: 1, crc64: 1))
        let first = machine.handle(.objectChanged)
        #expect(first.last == .headObject)
        #expect(first.contains(.deleteTempFile(path: "/tmp/dest.bin.osstmp-1")))
        let newObject = OSSObjectIdentity(etag: "\"ETAG-3\"", size: 204_800, lastModified: "x", crc64: nil)
        let restart = machine.handle(.objectHeaded(newObject))
        #expect(restart.contains(.prepareTempFile(path: "/tmp/dest.bin.osstmp-1", length: 204_800)))
        #expect(dlDownloads(restart).count == 2)
        #expect(dlLastRecord(restart)?.object == newObject)
        #expect(dlLastRecord(restart)?.parts == [])
        let second = machine.handle(.objectChanged)
        guard case .error(.objectChanged)? = dlFailure(second) else {
            Issue.record("expected objectChanged on the second 412, got \(second)")
            return
        }
    }

    @Test("cancel keeps the temp file and record; without a record the temp file goes")
    func cancel() {
        var kept = DLMachine(configuration: fixture.configuration(record: true))
        _ = kept.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(kept.handle(.cancelled) == [.fail(.cancelled)])

        var dropped = DLMachine(configuration: fixture.configuration(record: false))
        let start = dropped.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(dlLastRecord(start) == nil)
        #expect(dropped.handle(.cancelled) == [.deleteTempFile(path: "/tmp/dest.bin.osstmp-1"), .fail(.cancelled)])
    }

    @Test("resumable failures keep the partial download; final ones clean up")
    func failures() {
        var resumable = DLMachine(configuration: fixture.configuration())
        _ = resumable.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(resumable.handle(.failed(resumable: true)) == [.fail(.operationFailed)])

        var terminal = DLMachine(configuration: fixture.configuration())
        _ = terminal.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil))
        #expect(
            terminal.handle(.failed(resumable: false))
                == [.deleteTempFile(path: "/tmp/dest.bin.osstmp-1"), .deleteRecord, .fail(.operationFailed)])
        #expect(terminal.handle(.partDownloaded(number: 1, crc64: 1)).isEmpty)
    }

    @Test("duplicate or unknown part completions are ignored")
    func duplicates() {
        var machine = DLMachine(configuration: fixture.configuration())
        let parts = dlDownloads(machine.handle(.start(record: .none, object: fixture.object, recordedTempFileSize: nil)))
        #expect(!machine.handle(.partDownloaded(number: 1, crc64: fixture.crc(parts[0]))).isEmpty)
        #expect(machine.handle(.partDownloaded(number: 1, crc64: fixture.crc(parts[0]))).isEmpty)
        #expect(machine.handle(.partDownloaded(number: 9, crc64: 0)).isEmpty)
    }
}
