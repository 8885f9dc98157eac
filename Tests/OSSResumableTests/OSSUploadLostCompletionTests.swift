import OSSResumable
import Testing

/// `NoSuchUpload` once every part is confirmed: the upload may already be the object (a Complete whose answer was
/// lost). The machine asks for a HEAD with the expected size and combined CRC-64 and adopts the object only when
/// both match.
@Suite("Upload state machine: a lost Complete answer")
struct OSSUploadLostCompletionTests {
    let f = UploadFixture()

    /// A fresh upload with every part confirmed, at the Complete step.
    func completing(crc: OSSCRCMode = .enabled) -> Machine {
        var m = Machine(configuration: f.config(crc: crc))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        for number in 1...3 {
            let local: UInt64? = crc == .enabled ? f.crc(number) : nil
            _ = m.handle(.partUploaded(uploadId: "U1", number: number, etag: "\"E\(number)\"", localCRC64: local, serverCRC64: local))
        }
        _ = m.handle(.fileRechecked(f.file))
        return m
    }

    @Test("NoSuchUpload at Complete → HEAD; a matching object finishes the upload")
    func adoptsAMatchingObject() {
        var m = completing()
        #expect(m.handle(.uploadNotFound) == [.checkCompletedObject(size: UploadFixture.fileSize, crc64: f.wholeCRC)])
        #expect(!m.isFinished)
        #expect(m.handle(.completedObjectChecked(matches: true, serverCRC64: f.wholeCRC))
            == [.deleteRecord, .finish(crc64: f.wholeCRC)])
        #expect(m.isFinished)
    }

    @Test("NoSuchUpload at Complete → HEAD; another object (or none) starts a new upload as before")
    func otherObjectStartsOver() {
        var m = completing()
        _ = m.handle(.uploadNotFound)
        #expect(m.handle(.completedObjectChecked(matches: false, serverCRC64: 1)) == [.deleteRecord, .initiateUpload])
        #expect(m.uploadId == nil)
        #expect(m.confirmedBytes == 0)
    }

    @Test("without the parts' CRCs there is nothing to compare: a new upload as before")
    func noCRCNoAdoption() {
        var m = completing(crc: .disabled)
        #expect(m.handle(.uploadNotFound) == [.deleteRecord, .initiateUpload])
    }

    @Test("a record confirming every part whose upload is gone at ListParts (died after Complete) → HEAD → adopted")
    func resumedRecordOfACompletedUpload() {
        var m = Machine(configuration: f.config())
        #expect(m.handle(.start(record: .loaded(f.record(parts: [1, 2, 3])), file: f.file)) == [.listParts(uploadId: "U1")])
        #expect(m.handle(.uploadNotFound) == [.checkCompletedObject(size: UploadFixture.fileSize, crc64: f.wholeCRC)])
        #expect(m.handle(.completedObjectChecked(matches: true, serverCRC64: f.wholeCRC)) == [
            .reportProgress(bytesSent: 250_000, totalBytesSent: 250_000, totalBytesExpected: 250_000),
            .deleteRecord, .finish(crc64: f.wholeCRC),
        ])
        #expect(m.resumedBytes == 250_000)
    }

    @Test("a record missing a part whose upload is gone at ListParts: no HEAD, a new upload")
    func partialRecordStartsOver() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .loaded(f.record(parts: [1, 3])), file: f.file))
        #expect(m.handle(.uploadNotFound) == [.deleteRecord, .initiateUpload])
        #expect(m.resumedBytes == 0)
    }

    @Test("the HEAD answer is refused outside the check")
    func checkAnswerOutOfPlace() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        guard case .fail(.error(.invalidState))? = m.handle(.completedObjectChecked(matches: true, serverCRC64: nil)).last else {
            Issue.record("expected invalidState")
            return
        }
    }
}
