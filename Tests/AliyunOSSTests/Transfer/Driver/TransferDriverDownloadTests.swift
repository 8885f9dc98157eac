@testable import AliyunOSS
import OSSResumable
import Testing

/// The transfer driver with the download state machine, over scripted effects: a three-part download, one part
/// at a time, whose part `n` has the CRC-64 `n`.
@Suite("transfer driver: downloads", .timeLimit(.minutes(1)))
struct TransferDriverDownloadTests {
    static let size = 3 * scriptedPartSize

    /// The object, with the CRC-64 its parts combine to (or `crc64`).
    static func object(etag: String = "v1", crc64: UInt64? = nil) -> OSSObjectIdentity {
        let combined = CRC64.combine(parts: (1...3).map { (UInt64($0), UInt64(scriptedPartSize)) })
        return OSSObjectIdentity(etag: etag, size: size, lastModified: nil, crc64: crc64 ?? combined)
    }

    static func run(
        _ effects: ScriptedDownloadEffects, object: OSSObjectIdentity = object(),
        onObjectChanged: OSSDownloadStateMachine.ObjectChangedPolicy = .restartOnce
    ) async -> (end: OSSTransferEnd, driver: OSSTransferDriver<ScriptedDownloadEffects>) {
        let machine = OSSDownloadStateMachine(
            configuration: .init(
                bucket: "bkt", key: "scripted", destinationPath: "/scripted/dest", tempFilePath: "/scripted/dest.tmp",
                requestedPartSize: scriptedPartSize, crcMode: .enabled, onObjectChanged: onObjectChanged,
                persistsRecord: true))
        let driver = OSSTransferDriver(
            machine: machine, effects: effects, cancellation: effects.script.cancellation, threadNum: 1)
        let end = await driver.run(.start(record: .none, object: object, recordedTempFileSize: nil))
        return (end, driver)
    }

    @Test func performsTheMachinesActionsInOrder() async {
        let effects = ScriptedDownloadEffects(replacement: Self.object())
        let (end, _) = await Self.run(effects)
        #expect(end.name == "finished")
        #expect(
            effects.script.log == [
                "prepare", "save 0", "part 1", "save 1", "part 2", "save 2", "part 3", "save 3", "commit", "delete record",
            ])
        #expect(effects.script.reports == [scriptedPartSize, 2 * scriptedPartSize, Self.size])
    }

    @Test func checkpointsOfAPartInFlightAreSavedAndAPauseKeepsTheLast() async {
        let effects = ScriptedDownloadEffects(
            troubles: [.part(2): .pause], replacement: Self.object(), checkpoints: [2: [25_600, 51_200]])
        let (end, driver) = await Self.run(effects)
        #expect(end.name == "paused")
        let expected = [OSSDownloadRecord.PartialPart(number: 2, offset: scriptedPartSize, bytes: 51_200, crc64: 51_200)]
        #expect(driver.machine.record?.partials == expected)
        #expect(effects.lastSavedPartials == expected)
        #expect(effects.script.saved.last == [1])
        #expect(driver.machine.record?.bytesDone == scriptedPartSize + 51_200)
    }

    @Test func aCheckpointWhoseSaveFailsStopsTheDownloadAndKeepsTheRecord() async {
        let effects = ScriptedDownloadEffects(
            troubles: [.save(2): .fail(times: 1, error: TransferScript.networkFailure), .part(1): .block],
            replacement: Self.object(), checkpoints: [1: [25_600]])
        let (end, _) = await Self.run(effects)
        #expect(end.name == "operationFailed")
        #expect(!effects.script.log.contains("delete record"))
        #expect(!effects.script.log.contains("delete temp"))
        #expect(effects.script.saved.count == 1)
    }

    @Test func aWrongObjectCRCFailsAndRemovesThePartialDownload() async {
        let effects = ScriptedDownloadEffects(replacement: Self.object())
        let (end, _) = await Self.run(effects, object: Self.object(crc64: 12_345))
        guard case .failed(.crcMismatch(let expected, _)) = end else {
            Issue.record("expected a CRC mismatch, got \(end.name)")
            return
        }
        #expect(expected == 12_345)
        #expect(effects.script.log.suffix(2) == ["delete temp", "delete record"])
        #expect(!effects.script.log.contains("commit"))
    }

    @Test func aReplacedObjectStartsOverOnceAndProgressNeverGoesBack() async {
        let effects = ScriptedDownloadEffects(
            troubles: [.part(2): .fail(times: 1, error: ScriptedDownloadEffects.replaced)],
            replacement: Self.object(etag: "v2"))
        let (end, driver) = await Self.run(effects)
        #expect(end.name == "finished")
        #expect(driver.machine.object?.etag == "v2")
        #expect(
            effects.script.log == [
                "prepare", "save 0", "part 1", "save 1", "part 2", "delete temp", "delete record", "head", "prepare",
                "save 0", "part 1", "save 1", "part 2", "save 2", "part 3", "save 3", "commit", "delete record",
            ])
        let reports = effects.script.reports
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0 < $1 })
        #expect(reports.last == Self.size)
    }

    @Test func aReplacedObjectFailsWhenThePolicySaysSo() async {
        let effects = ScriptedDownloadEffects(
            troubles: [.part(2): .fail(times: 1, error: ScriptedDownloadEffects.replaced)],
            replacement: Self.object(etag: "v2"))
        let (end, _) = await Self.run(effects, onObjectChanged: .fail)
        guard case .failed(.objectChanged) = end else {
            Issue.record("expected objectChanged, got \(end.name)")
            return
        }
        #expect(!effects.script.log.contains("head"))
    }

    @Test(arguments: [true, false])
    func aFailedPartKeepsThePartialDownloadOnlyWhenTransient(transient: Bool) async {
        let error = transient ? TransferScript.networkFailure : OSSClientError(.invalidArgument, "scripted: refused")
        let effects = ScriptedDownloadEffects(
            troubles: [.part(2): .fail(times: 1, error: error)], replacement: Self.object())
        let (end, driver) = await Self.run(effects)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == error.code)
        #expect(effects.script.log.contains("delete temp") == !transient)
        #expect(effects.script.log.contains("delete record") == !transient)
        #expect(effects.script.saved.last == [1])
    }

    @Test func aCommitThatFailsFailsTheTransfer() async {
        let disk = OSSClientError(.fileCantWrite, "scripted: rename")
        let effects = ScriptedDownloadEffects(
            troubles: [.commit: .fail(times: 1, error: disk)], replacement: Self.object())
        let (end, driver) = await Self.run(effects)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .fileCantWrite)
        #expect(effects.script.log.last == "commit")
    }

    @Test(arguments: [false, true])
    func aStopWhilePartsMoveKeepsThePartialDownload(pause: Bool) async {
        let effects = ScriptedDownloadEffects(
            troubles: [.part(2): pause ? .pause : .cancel], replacement: Self.object())
        let (end, _) = await Self.run(effects)
        #expect(end.name == (pause ? "paused" : "cancelled"))
        #expect(!effects.script.log.contains("delete temp"))
        #expect(effects.script.saved.last == [1])
    }
}
