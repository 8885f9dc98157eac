import OSSResumable
import Testing

/// Pause versus cancel, decided purely: a pause keeps the upload id, the record and the temporary file whatever
/// the cancel policy says; a cancel keeps following it.
@Suite("State machines: pause versus cancel")
struct OSSStateMachinePauseTests {
    let f = UploadFixture()
    let d = DownloadFixture()

    @Test("upload: pause keeps the upload id and the record even with deleteUploadIdOnCancelling", arguments: [true, false])
    func uploadPauseKeepsEverything(persist: Bool) throws {
        var m = Machine(configuration: f.config(persist: persist, deleteOnCancel: true))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        _ = m.handle(f.uploaded(1))
        let actions = m.handle(.paused)
        #expect(actions == [.fail(.paused)])
        #expect(!actions.contains(.abortUpload(uploadId: "U1")))
        #expect(!actions.contains(.deleteRecord))
        #expect(m.isFinished)
        // The state to hand back in a resume token: the upload id and the confirmed part.
        let record = try #require(m.record)
        #expect(record.uploadId == "U1")
        #expect(record.parts == [f.confirmed(1)])
        // Late answers after the pause change nothing.
        #expect(m.handle(f.uploaded(2)) == [])
        #expect(m.handle(.cancelled) == [])
    }

    @Test("upload: the same moment cancelled follows the flag (abort + delete record)")
    func uploadCancelStillFollowsTheFlag() {
        var m = Machine(configuration: f.config(deleteOnCancel: true))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        _ = m.handle(f.uploaded(1))
        #expect(m.handle(.cancelled) == [.abortUpload(uploadId: "U1"), .deleteRecord, .fail(.cancelled)])
    }

    @Test("upload: a pause during ListParts of a resumed upload keeps the record for the next call")
    func uploadPauseWhileListing() {
        var m = Machine(configuration: f.config(deleteOnCancel: true))
        let actions = m.handle(.start(record: .loaded(f.record(parts: [1])), file: f.file))
        #expect(actions == [.listParts(uploadId: "U1")])
        #expect(m.handle(.paused) == [.fail(.paused)])
        // The token of this pause still holds the recorded part.
        #expect(m.record == f.record(parts: [1]))
    }

    @Test("upload: a pause before the upload is initiated just stops")
    func uploadPauseBeforeInitiate() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        #expect(m.handle(.paused) == [.fail(.paused)])
        #expect(m.record == nil)
    }

    @Test("download: pause keeps the temporary file, with or without a record", arguments: [true, false])
    func downloadPauseKeepsTheTempFile(record: Bool) throws {
        var m = DLMachine(configuration: d.configuration(record: record))
        let parts = dlDownloads(m.handle(.start(record: .none, object: d.object, recordedTempFileSize: nil)))
        _ = m.handle(.partDownloaded(number: 1, crc64: d.crc(parts[0])))
        let actions = m.handle(.paused)
        #expect(actions == [.fail(.paused)])
        #expect(m.isFinished)
        let kept = try #require(m.record)
        #expect(kept.tempFilePath == "/tmp/dest.bin.osstmp-1")
        #expect(kept.parts.map(\.number) == [1])
        // A cancel without a record still removes the temporary file.
        var cancelled = DLMachine(configuration: d.configuration(record: false))
        _ = cancelled.handle(.start(record: .none, object: d.object, recordedTempFileSize: nil))
        #expect(cancelled.handle(.cancelled) == [.deleteTempFile(path: "/tmp/dest.bin.osstmp-1"), .fail(.cancelled)])
    }
}
