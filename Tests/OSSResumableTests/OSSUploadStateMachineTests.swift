import OSSCRC64
import OSSResumable
import OSSTestSupport
import Testing

typealias Machine = OSSUploadStateMachine
typealias Action = OSSUploadStateMachine.Action

/// A 250,000-byte file cut into parts of 102,400: 102,400 + 102,400 + 45,200.
struct UploadFixture {
    static let fileSize: Int64 = 250_000
    let data = patternBytes(Int(UploadFixture.fileSize))
    let file = makeIdentity(size: UploadFixture.fileSize)

    func config(persist: Bool = true, deleteOnCancel: Bool = true, crc: OSSCRCMode = .enabled) -> Machine.Configuration {
        Machine.Configuration(
            bucket: "b",
            key: "k",
            filePath: "/data/f.bin",
            requestedPartSize: 102_400,
            crcMode: crc,
            deleteUploadIdOnCancelling: deleteOnCancel,
            persistsRecord: persist
        )
    }

    var plan: OSSPartPlan { get throws { try OSSPartPlan.upload(fileSize: Self.fileSize, preferredPartSize: 102_400) } }

    func crc(_ number: Int) -> UInt64 {
        let start = min((number - 1) * 102_400, data.count)
        let end = min(start + 102_400, data.count)
        return CRC64.checksum(data[start..<end])
    }

    func size(_ number: Int) -> Int64 { number == 3 ? 45_200 : 102_400 }

    var wholeCRC: UInt64 { CRC64.checksum(data) }

    func confirmed(_ number: Int, etag: String? = nil, crc: UInt64?? = nil) -> OSSUploadRecord.ConfirmedPart {
        .init(number: number, size: size(number), crc64: crc ?? self.crc(number), etag: etag ?? "\"E\(number)\"")
    }

    func serverPart(_ number: Int, size: Int64? = nil, etag: String? = nil, crc: UInt64?? = nil) -> Machine.ServerPart {
        .init(number: number, size: size ?? self.size(number), etag: etag ?? "\"E\(number)\"", crc64: crc ?? self.crc(number))
    }

    func record(parts: [Int], uploadId: String = "U1", file: OSSFileIdentity? = nil, key: String = "k") -> OSSUploadRecord {
        OSSUploadRecord(
            bucket: "b",
            key: key,
            filePath: "/data/f.bin",
            fileIdentity: file ?? self.file,
            requestedPartSize: 102_400,
            partSize: 102_400,
            crcMode: .enabled,
            uploadId: uploadId,
            parts: parts.map { confirmed($0) }
        )
    }

    func uploaded(_ number: Int, uploadId: String = "U1", serverCRC: UInt64?? = nil) -> Machine.Event {
        .partUploaded(uploadId: uploadId, number: number, etag: "\"E\(number)\"", localCRC64: crc(number), serverCRC64: serverCRC ?? crc(number))
    }
}

func failure(in actions: [Action]) -> Machine.Failure? {
    for case .fail(let failure) in actions { return failure }
    return nil
}

func uploadedParts(in actions: [Action]) -> [Int] {
    for case .uploadParts(_, let parts) in actions { return parts.map(\.number) }
    return []
}

@Suite("Upload state machine")
struct OSSUploadStateMachineTests {
    let f = UploadFixture()

    @Test func freshUploadRunsToCompletionAndVerifiesTheCombinedCRC() throws {
        var m = Machine(configuration: f.config())
        #expect(m.handle(.start(record: .none, file: f.file)) == [.initiateUpload])
        let afterInit = m.handle(.initiated(uploadId: "U1"))
        #expect(afterInit == [.writeRecord(f.record(parts: [])), .uploadParts(uploadId: "U1", parts: try f.plan.parts)])
        // Parts finish out of order.
        #expect(
            m.handle(f.uploaded(2))
                == [.writeRecord(f.record(parts: [2])), .reportProgress(bytesSent: 102_400, totalBytesSent: 102_400, totalBytesExpected: 250_000)]
        )
        #expect(
            m.handle(f.uploaded(3))
                == [.writeRecord(f.record(parts: [2, 3])), .reportProgress(bytesSent: 45_200, totalBytesSent: 147_600, totalBytesExpected: 250_000)]
        )
        #expect(
            m.handle(f.uploaded(1))
                == [
                    .writeRecord(f.record(parts: [1, 2, 3])),
                    .reportProgress(bytesSent: 102_400, totalBytesSent: 250_000, totalBytesExpected: 250_000),
                    .recheckFile,
                ]
        )
        #expect(
            m.handle(.fileRechecked(f.file))
                == [
                    .complete(
                        uploadId: "U1",
                        parts: [.init(number: 1, etag: "\"E1\""), .init(number: 2, etag: "\"E2\""), .init(number: 3, etag: "\"E3\"")],
                        expectedCRC64: f.wholeCRC
                    )
                ]
        )
        #expect(m.handle(.completed(serverCRC64: f.wholeCRC)) == [.deleteRecord, .finish(crc64: f.wholeCRC)])
        #expect(m.isFinished)
        #expect(m.handle(.cancelled) == [])
        #expect(m.handle(f.uploaded(1)) == [])
    }

    @Test func withoutARecordDirectoryNothingIsWrittenOrDeleted() {
        var m = Machine(configuration: f.config(persist: false))
        var all: [Action] = []
        all += m.handle(.start(record: .none, file: f.file))
        all += m.handle(.initiated(uploadId: "U1"))
        for n in 1...3 { all += m.handle(f.uploaded(n)) }
        all += m.handle(.fileRechecked(f.file))
        all += m.handle(.completed(serverCRC64: f.wholeCRC))
        #expect(!all.contains { if case .writeRecord = $0 { true } else { false } })
        #expect(!all.contains(.deleteRecord))
        #expect(all.last == .finish(crc64: f.wholeCRC))
    }

    @Test func resumeReusesServerPartsAndCombinesTheirCRCs() {
        var m = Machine(configuration: f.config())
        #expect(m.handle(.start(record: .loaded(f.record(parts: [1, 2])), file: f.file)) == [.listParts(uploadId: "U1")])
        let actions = m.handle(.listedParts([f.serverPart(1), f.serverPart(2)]))
        #expect(
            actions == [
                .writeRecord(f.record(parts: [1, 2])),
                .reportProgress(bytesSent: 204_800, totalBytesSent: 204_800, totalBytesExpected: 250_000),
                .uploadParts(uploadId: "U1", parts: [OSSPart(number: 3, offset: 204_800, length: 45_200)]),
            ]
        )
        #expect(m.resumedBytes == 204_800)
        #expect(m.handle(f.uploaded(3)).last == .recheckFile)
        guard case .complete(_, let parts, let expected) = m.handle(.fileRechecked(f.file)).first else {
            Issue.record("expected complete")
            return
        }
        #expect(parts.map(\.number) == [1, 2, 3])
        #expect(expected == f.wholeCRC)
        #expect(m.handle(.completed(serverCRC64: f.wholeCRC)) == [.deleteRecord, .finish(crc64: f.wholeCRC)])
    }

    @Test func resumeWithEverythingUploadedGoesStraightToCompletion() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .loaded(f.record(parts: [1, 2, 3])), file: f.file))
        let actions = m.handle(.listedParts((1...3).map { f.serverPart($0) }))
        #expect(actions.last == .recheckFile)
        #expect(uploadedParts(in: actions).isEmpty)
    }

    @Test func partsThatDoNotMatchAreSentAgain() throws {
        let plan = try f.plan
        let result = Machine.reconcile(
            plan: plan,
            recorded: [f.confirmed(1), f.confirmed(2, etag: "\"OLD\""), f.confirmed(3)],
            server: [
                f.serverPart(1),
                f.serverPart(2),  // ETag differs from the record
                f.serverPart(3, size: 45_199),  // wrong size
                f.serverPart(4),  // outside the plan: ignored
            ],
            crcMode: .enabled
        )
        #expect(result.reused.map(\.number) == [1])
        #expect(result.resend.map(\.number) == [2, 3])
    }

    @Test func crcConflictBetweenRecordAndServerIsSentAgain() throws {
        let result = Machine.reconcile(
            plan: try f.plan,
            recorded: [f.confirmed(1)],
            server: [f.serverPart(1, crc: f.crc(1) ^ 1)],
            crcMode: .enabled
        )
        #expect(result.reused.isEmpty)
        #expect(result.resend.map(\.number) == [1, 2, 3])
    }

    @Test func serverPartUnknownToTheRecordIsReusedOnlyWithACRCInCRCMode() throws {
        // A kill between UploadPart's answer and the record write leaves a part only the server knows.
        let withCRC = Machine.reconcile(plan: try f.plan, recorded: [], server: [f.serverPart(1)], crcMode: .enabled)
        #expect(withCRC.reused == [f.confirmed(1)])
        let withoutCRC = Machine.reconcile(plan: try f.plan, recorded: [], server: [f.serverPart(1, crc: .some(nil))], crcMode: .enabled)
        #expect(withoutCRC.reused.isEmpty)
        let crcOff = Machine.reconcile(plan: try f.plan, recorded: [], server: [f.serverPart(1, crc: .some(nil))], crcMode: .disabled)
        #expect(crcOff.reused.map(\.number) == [1])
        // Quotes and case in ETags do not matter.
        let quoted = Machine.reconcile(
            plan: try f.plan, recorded: [f.confirmed(1, etag: "\"abc\"")], server: [f.serverPart(1, etag: "ABC")], crcMode: .enabled)
        #expect(quoted.reused.map(\.number) == [1])
        // A record CRC fills in for a listing without one.
        let fromRecord = Machine.reconcile(
            plan: try f.plan, recorded: [f.confirmed(1)], server: [f.serverPart(1, crc: .some(nil))], crcMode: .enabled)
        #expect(fromRecord.reused.first?.crc64 == f.crc(1))
    }

    @Test func changedFileAbortsTheStaleUploadDeletesTheRecordAndFails() {
        var m = Machine(configuration: f.config())
        let changed = makeIdentity(size: UploadFixture.fileSize, mtime: 1_700_000_000_000_000_001)
        let actions = m.handle(.start(record: .loaded(f.record(parts: [1])), file: changed))
        #expect(
            actions == [
                .abortUpload(uploadId: "U1"),
                .deleteRecord,
                .fail(.error(.fileChanged([.modificationTime(recordedNanoseconds: 1_700_000_000_000_000_000, currentNanoseconds: 1_700_000_000_000_000_001)]))),
            ]
        )
        #expect(m.isFinished)
    }

    @Test func corruptRecordIsDiscardedAndTheUploadStartsFresh() {
        var m = Machine(configuration: f.config())
        #expect(
            m.handle(.start(record: .unusable(.recordChecksumMismatch), file: f.file))
                == [.discardRecord(reason: .recordChecksumMismatch), .initiateUpload]
        )
    }

    @Test func theUploadADamagedRecordStillNamesIsAbortedBeforeAFreshStart() {
        var m = Machine(configuration: f.config())
        let config = f.config()
        let salvage = OSSRecordSalvage(uploadId: "U9", bucket: config.bucket, key: config.key)
        #expect(
            m.handle(.start(record: .unusable(.recordChecksumMismatch), file: f.file, salvage: salvage))
                == [.discardRecord(reason: .recordChecksumMismatch), .abortUpload(uploadId: "U9"), .initiateUpload]
        )
        // Only the transfer's own upload: a record that still shows another key is not followed.
        var other = Machine(configuration: f.config())
        let foreign = OSSRecordSalvage(uploadId: "U9", bucket: config.bucket, key: config.key + "-other")
        #expect(
            other.handle(.start(record: .unusable(.recordChecksumMismatch), file: f.file, salvage: foreign))
                == [.discardRecord(reason: .recordChecksumMismatch), .initiateUpload]
        )
    }

    @Test func foreignRecordIsDiscarded() {
        var m = Machine(configuration: f.config())
        let actions = m.handle(.start(record: .loaded(f.record(parts: [1], key: "other")), file: f.file))
        #expect(actions.count == 2)
        #expect(actions.last == .initiateUpload)
        guard case .discardRecord(.recordForeign) = actions.first else {
            Issue.record("expected a foreign-record discard, got \(actions)")
            return
        }
    }

    @Test func noSuchUploadStartsANewUploadOnceThenGivesUp() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .loaded(f.record(parts: [1, 2])), file: f.file))
        #expect(m.handle(.uploadNotFound) == [.deleteRecord, .initiateUpload])
        let actions = m.handle(.initiated(uploadId: "U2"))
        #expect(uploadedParts(in: actions) == [1, 2, 3])
        #expect(m.uploadId == "U2")
        #expect(m.handle(.uploadNotFound) == [.deleteRecord, .fail(.error(.uploadNotFound(uploadId: "U2")))])
    }

    @Test func lateAnswersForAnAbandonedUploadAreIgnored() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        _ = m.handle(f.uploaded(1))
        #expect(m.handle(.uploadNotFound) == [.deleteRecord, .initiateUpload])
        _ = m.handle(.initiated(uploadId: "U2"))
        #expect(m.handle(f.uploaded(2, uploadId: "U1")) == [])
        #expect(m.confirmedBytes == 0)
        // Progress already reported stays; the new upload only reports beyond it.
        #expect(m.handle(f.uploaded(1, uploadId: "U2")) == [.writeRecord(OSSUploadRecord(
            bucket: "b", key: "k", filePath: "/data/f.bin", fileIdentity: f.file, requestedPartSize: 102_400,
            partSize: 102_400, crcMode: .enabled, uploadId: "U2", parts: [f.confirmed(1)]))])
        let next = m.handle(f.uploaded(2, uploadId: "U2"))
        #expect(next.contains(.reportProgress(bytesSent: 102_400, totalBytesSent: 204_800, totalBytesExpected: 250_000)))
    }

    @Test(arguments: [true, false])
    func cancelFollowsTheFlag(deleteOnCancel: Bool) {
        var m = Machine(configuration: f.config(deleteOnCancel: deleteOnCancel))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        _ = m.handle(f.uploaded(1))
        let actions = m.handle(.cancelled)
        if deleteOnCancel {
            #expect(actions == [.abortUpload(uploadId: "U1"), .deleteRecord, .fail(.cancelled)])
        } else {
            #expect(actions == [.fail(.cancelled)])
        }
        #expect(m.handle(f.uploaded(2)) == [])
    }

    @Test func cancelBeforeAnUploadExistsJustFails() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        #expect(m.handle(.cancelled) == [.fail(.cancelled)])
    }

    @Test(arguments: [true, false])
    func cancelWithoutARecordAbortsPerTheFlag(deleteOnCancel: Bool) {
        var m = Machine(configuration: f.config(persist: false, deleteOnCancel: deleteOnCancel))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        let actions = m.handle(.cancelled)
        #expect(actions == (deleteOnCancel ? [.abortUpload(uploadId: "U1"), .fail(.cancelled)] : [.fail(.cancelled)]))
    }

    @Test func failureKeepsTheRecord() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        _ = m.handle(f.uploaded(1))
        #expect(m.handle(.failed) == [.fail(.operationFailed)])
        var listing = Machine(configuration: f.config())
        _ = listing.handle(.start(record: .loaded(f.record(parts: [1])), file: f.file))
        #expect(listing.handle(.failed) == [.fail(.operationFailed)])
    }

    @Test(arguments: [true, false])
    func failureWithoutARecordAbortsPerTheFlag(deleteOnCancel: Bool) {
        var m = Machine(configuration: f.config(persist: false, deleteOnCancel: deleteOnCancel))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        let actions = m.handle(.failed)
        #expect(actions == (deleteOnCancel ? [.abortUpload(uploadId: "U1"), .fail(.operationFailed)] : [.fail(.operationFailed)]))
    }

    @Test func combinedCRCMismatchAtCompletionIsInvalidCRC() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        for n in 1...3 { _ = m.handle(f.uploaded(n)) }
        _ = m.handle(.fileRechecked(f.file))
        #expect(
            m.handle(.completed(serverCRC64: f.wholeCRC ^ 0xFF))
                == [.deleteRecord, .fail(.error(.crcMismatch(expected: f.wholeCRC, actual: f.wholeCRC ^ 0xFF)))]
        )
    }

    @Test func crcModeOffSkipsTheFinalCheck() {
        var m = Machine(configuration: f.config(crc: .disabled))
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        for n in 1...3 { _ = m.handle(f.uploaded(n)) }
        _ = m.handle(.fileRechecked(f.file))
        #expect(m.handle(.completed(serverCRC64: 99)) == [.deleteRecord, .finish(crc64: 99)])
    }

    @Test func partCRCMismatchIsResentThenFails() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        let part2 = OSSPart(number: 2, offset: 102_400, length: 102_400)
        #expect(m.handle(f.uploaded(2, serverCRC: 1)) == [.uploadParts(uploadId: "U1", parts: [part2])])
        #expect(m.handle(f.uploaded(2, serverCRC: 1)) == [.uploadParts(uploadId: "U1", parts: [part2])])
        #expect(
            m.handle(f.uploaded(2, serverCRC: 1))
                == [.fail(.error(.partCRCMismatch(partNumber: 2, expected: f.crc(2), actual: 1)))]
        )
    }

    @Test func partCRCMismatchThenSuccessIsConfirmed() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        _ = m.handle(f.uploaded(2, serverCRC: 1))
        #expect(m.handle(f.uploaded(2)).contains(.reportProgress(bytesSent: 102_400, totalBytesSent: 102_400, totalBytesExpected: 250_000)))
    }

    @Test func fileChangedDuringTheUploadIsCaughtBeforeCompleting() {
        var m = Machine(configuration: f.config())
        _ = m.handle(.start(record: .none, file: f.file))
        _ = m.handle(.initiated(uploadId: "U1"))
        for n in 1...3 { _ = m.handle(f.uploaded(n)) }
        let actions = m.handle(.fileRechecked(makeIdentity(size: UploadFixture.fileSize, crc: 8)))
        #expect(actions == [.abortUpload(uploadId: "U1"), .deleteRecord, .fail(.error(.fileChanged([.content])))])
    }

    @Test func emptyFileIsOneEmptyPartWithCRCZero() {
        var m = Machine(configuration: f.config())
        let empty = makeIdentity(size: 0)
        _ = m.handle(.start(record: .none, file: empty))
        let actions = m.handle(.initiated(uploadId: "U1"))
        #expect(actions.last == .uploadParts(uploadId: "U1", parts: [OSSPart(number: 1, offset: 0, length: 0)]))
        let done = m.handle(.partUploaded(uploadId: "U1", number: 1, etag: "\"D4\"", localCRC64: 0, serverCRC64: 0))
        #expect(done.last == .recheckFile)
        #expect(m.handle(.fileRechecked(empty)) == [.complete(uploadId: "U1", parts: [.init(number: 1, etag: "\"D4\"")], expectedCRC64: 0)])
        #expect(m.handle(.completed(serverCRC64: 0)) == [.deleteRecord, .finish(crc64: 0)])
    }

    @Test func progressIsMonotonicAndEndsAtTheTotal() {
        var m = Machine(configuration: f.config())
        var all: [Action] = []
        all += m.handle(.start(record: .loaded(f.record(parts: [2])), file: f.file))
        all += m.handle(.listedParts([f.serverPart(2)]))
        all += m.handle(f.uploaded(3))
        all += m.handle(f.uploaded(3))  // duplicate: ignored
        all += m.handle(f.uploaded(1))
        var last: Int64 = 0
        var sum: Int64 = 0
        for case .reportProgress(let sent, let total, let expected) in all {
            #expect(sent > 0)
            #expect(total > last)
            #expect(expected == 250_000)
            sum += sent
            last = total
        }
        #expect(last == 250_000)
        #expect(sum == 250_000)
    }

    @Test func eventsOutOfOrderAreInvalidState() {
        var m = Machine(configuration: f.config())
        guard case .error(.invalidState) = failure(in: m.handle(.initiated(uploadId: "U1"))) else {
            Issue.record("expected invalidState")
            return
        }
        var n = Machine(configuration: f.config())
        _ = n.handle(.start(record: .none, file: f.file))
        guard case .error(.invalidState) = failure(in: n.handle(.completed(serverCRC64: nil))) else {
            Issue.record("expected invalidState")
            return
        }
    }

    @Test func fileTooLargeForAnyPlanFailsAtStart() {
        var m = Machine(configuration: f.config())
        let huge = makeIdentity(size: 10_000 * 5 * (1 << 30) + 1)
        guard case .error(.invalidArgument) = failure(in: m.handle(.start(record: .none, file: huge))) else {
            Issue.record("expected invalidArgument")
            return
        }
    }
}
