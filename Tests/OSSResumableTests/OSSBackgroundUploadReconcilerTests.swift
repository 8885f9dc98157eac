import Foundation
import OSSCRC64
import OSSResumable
import Testing

@Suite("Background upload reconciler and record")
struct OSSBackgroundUploadReconcilerTests {
    /// A record of 4 parts of 200 KB, all copied (CRC-64 100 + number) and queued.
    func queuedRecord(parts: Int = 4) throws -> OSSBackgroundUploadRecord {
        let plan = try OSSPartPlan.upload(fileSize: Int64(parts) * 200_000, preferredPartSize: 200_000)
        var record = OSSBackgroundUploadRecord(
            transferId: "t1", bucket: "b", key: "k", filePath: "/tmp/f", plan: plan, uploadId: "u", maximumQueuedParts: 2)
        for index in record.parts.indices {
            record.parts[index].crc64 = UInt64(100 + record.parts[index].number)
            record.parts[index].contentMD5 = "md5"
            record.parts[index].copyName = String(record.parts[index].number)
            record.parts[index].state = .queued(description: record.taskDescription(part: index + 1))
        }
        return record
    }

    func ok(_ part: Int, crc: UInt64?, transfer: String = "t1") -> OSSBackgroundPartCompletion {
        OSSBackgroundPartCompletion(description: "\(transfer)/\(part)", status: 200, etag: "\"E\(part)\"", serverCRC64: crc)
    }

    @Test func descriptionsRoundTripAndRejectForeignText() {
        #expect(OSSBackgroundTaskDescription(parsing: "a/b-c/12") == OSSBackgroundTaskDescription(transferId: "a/b-c", partNumber: 12))
        #expect(OSSBackgroundTaskDescription(transferId: "x", partNumber: 3).description == "x/3")
        for bad in ["", "x", "/3", "x/0", "x/10001", "x/three", "x/-1"] {
            #expect(OSSBackgroundTaskDescription(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func aPartIsDoneOnlyWithStatus200AnETagAndTheRecordedCRC() throws {
        let record = try queuedRecord()
        let decision = OSSBackgroundUploadReconciler.reconcile(
            record,
            completions: [
                ok(1, crc: 101),
                ok(2, crc: 999),  // other bytes arrived
                OSSBackgroundPartCompletion(description: "t1/3", status: 403, etag: nil, serverCRC64: nil),  // expired URL
                OSSBackgroundPartCompletion(description: "t1/4", status: nil, etag: nil, serverCRC64: nil),  // cancelled
                ok(1, crc: 101, transfer: "other"),
            ],
            pendingDescriptions: [], maximumQueued: 2)
        #expect(decision.outcomes == [
            .verified(part: 1), .crcMismatch(part: 2, expected: 102, server: 999), .failed(part: 3, status: 403),
            .failed(part: 4, status: nil),
        ])
        #expect(decision.record.parts[0].state == .done(etag: "\"E1\"", crc64: 101))
        #expect(decision.record.parts[1...].allSatisfy { $0.state == .waiting })
        #expect(decision.partsToSubmit == [2, 3], "at most maximumQueued parts go back to the system")
        #expect(!decision.readyToComplete)
        #expect(decision.record.completedBytes == 200_000)
    }

    @Test func queuedButUnknownToTheSystemIsSubmittedAgainAndPendingIsLeftAlone() throws {
        let record = try queuedRecord()
        let decision = OSSBackgroundUploadReconciler.reconcile(
            record, completions: [], pendingDescriptions: ["t1/1", "t1/2"], maximumQueued: 3)
        #expect(decision.partsInFlight == [1, 2])
        #expect(decision.partsToSubmit == [3], "one slot is left of three")
        #expect(decision.record.parts[3].state == .waiting)
    }

    @Test func duplicatesChangeNothingAndCompletionNeedsEveryPart() throws {
        var record = try queuedRecord(parts: 2)
        var decision = OSSBackgroundUploadReconciler.reconcile(
            record, completions: [ok(1, crc: 101), ok(2, crc: 102)], pendingDescriptions: [], maximumQueued: 2)
        #expect(decision.readyToComplete)
        record = decision.record
        decision = OSSBackgroundUploadReconciler.reconcile(
            record, completions: [OSSBackgroundPartCompletion(description: "t1/2", status: 500, etag: nil, serverCRC64: nil)],
            pendingDescriptions: [], maximumQueued: 2)
        #expect(decision.outcomes == [.duplicate(part: 2)])
        #expect(decision.record == record)
        #expect(record.combinedCRC64 == CRC64.combine(parts: [(crc: UInt64(101), length: UInt64(200_000)), (crc: UInt64(102), length: UInt64(200_000))]))
    }

    @Test func theRecordSurvivesTheStoreAndHoldsNoURL() throws {
        var record = try queuedRecord()
        record.parts[0].state = .done(etag: "\"E1\"", crc64: 101)
        record.parts[3].state = .waiting
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-record-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = OSSRecordStore(directoryPath: directory)
        try store.save(record, name: "t1.bgupload.record")
        #expect(try store.load(OSSBackgroundUploadRecord.self, name: "t1.bgupload.record") == record)
        let text = try String(contentsOfFile: store.recordPath(name: "t1.bgupload.record"), encoding: .utf8)
        #expect(!text.contains("http"))
        #expect(!text.contains("Signature"))
        // A record of another kind is refused.
        #expect(throws: OSSResumableError.self) { try store.load(OSSUploadRecord.self, name: "t1.bgupload.record") }
    }

    @Test func aSliceCopyHashesExactlyItsRange() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bg-slice-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let source = directory.appendingPathComponent("src").path
        try Data(bytes).write(to: URL(fileURLWithPath: source))
        let copy = directory.appendingPathComponent("part").path
        let digest = try OSSPartSliceCopy.copy(source: source, offset: 1_000_001, length: 1_500_000, to: copy)
        let slice = Array(bytes[1_000_001..<2_500_001])
        #expect(digest.crc64 == CRC64.checksum(slice))
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: copy))) == slice)
        #expect(!FileManager.default.fileExists(atPath: copy + ".tmp"))
        // Past the end of the file: a precise error, and no copy.
        #expect(throws: OSSResumableError.self) {
            try OSSPartSliceCopy.copy(source: source, offset: 2_900_000, length: 200_000, to: copy + "2")
        }
        #expect(!FileManager.default.fileExists(atPath: copy + "2"))
    }

    @Test func listPartsAdoptsOnlyCandidatesWithTheirLengthAndCRC() throws {
        let record = try queuedRecord()
        let listed: [OSSUploadStateMachine.ServerPart] = [
            .init(number: 1, size: 200_000, etag: "\"A\"", crc64: 101),  // adopted
            .init(number: 2, size: 200_000, etag: "\"B\"", crc64: 7),  // other bytes
            .init(number: 3, size: 199_999, etag: "\"C\"", crc64: 103),  // other length
            .init(number: 4, size: 200_000, etag: "\"D\"", crc64: 104),  // not a candidate
        ]
        let (adopted, numbers) = OSSBackgroundUploadReconciler.adopt(record, listed: listed, candidates: [1, 2, 3])
        #expect(numbers == [1])
        #expect(adopted.parts[0].state == .done(etag: "\"A\"", crc64: 101))
        #expect(adopted.parts[1...] == record.parts[1...])
    }

    @Test func aFailureOfAnOlderTaskIsSupersededByTheOneTheSystemHolds() throws {
        let record = try queuedRecord(parts: 2)
        let decision = OSSBackgroundUploadReconciler.reconcile(
            record,
            completions: [
                OSSBackgroundPartCompletion(description: "t1/1", status: nil, etag: nil, serverCRC64: nil),  // old, cancelled
                ok(2, crc: 102),  // a success counts even with a newer task pending
            ],
            pendingDescriptions: ["t1/1", "t1/2"], maximumQueued: 2)
        #expect(decision.outcomes == [.superseded(part: 1), .verified(part: 2)])
        #expect(decision.record.parts[0].state == record.parts[0].state)
        #expect(decision.partsInFlight == [1])
        #expect(decision.partsToSubmit.isEmpty, "the newer task decides: nothing is submitted a third time")
    }

    @Test func recordsThatDoNotFollowTheirPlanAreRefused() throws {
        var gap = try queuedRecord()
        gap.parts.remove(at: 1)  // a hole: the parts no longer cover the file
        var crcless = try queuedRecord()
        crcless.parts[0].crc64 = nil
        crcless.parts[0].state = .done(etag: "\"E\"", crc64: 1)
        let plan = try OSSPartPlan.download(range: OSSByteRange(start: 0, length: 300_000), preferredPartSize: 100_000)
        var download = OSSBackgroundDownloadRecord(
            transferId: "d", bucket: "b", key: "k", destinationPath: "/tmp/d", tempFilePath: "/tmp/.d", etag: "\"E\"",
            objectCRC64: nil, plan: plan)
        #expect(throws: Never.self) { try download.validate() }
        download.etag = ""
        for bad in [gap.validate, crcless.validate, download.validate] {
            #expect(throws: OSSResumableError.self) { try bad() }
        }
    }
}
