@testable import AliyunOSS
import OSSResumable
import Testing

/// Pause, cancel and failure at every step of a scripted three-part upload (threadNum 1, so the steps come in
/// the order initiate, save 0, part 1, save 1, part 2, save 2, part 3, save 3, recheck, complete).
@Suite("transfer driver: stops and failures", .timeLimit(.minutes(1)))
struct TransferDriverStopTests {
    typealias Step = ScriptedUploadEffects.Step

    static let steps: [Step] = [.initiate, .save(1), .part(1), .save(2), .part(2), .save(4), .recheck, .complete]

    @Test(arguments: [false, true])
    func aRequestStoppedBeforeItStartsDoesNothing(pause: Bool) async {
        let effects = ScriptedUploadEffects()
        if pause { effects.cancellation.pause() } else { effects.cancellation.cancel() }
        let (end, _) = await runScriptedUpload(effects, parts: 3)
        #expect(end.name == (pause ? "paused" : "cancelled"))
        #expect(effects.log.isEmpty)
    }

    @Test(arguments: steps)
    func aCancelAtAnyStepCancels(step: Step) async {
        let effects = ScriptedUploadEffects(troubles: [step: .cancel])
        let (end, _) = await runScriptedUpload(effects, parts: 3)
        #expect(end.name == "cancelled")
        let log = effects.log
        #expect(Self.partsTried(log) <= Self.partsBefore(step) + (Self.isPart(step) ? 1 : 0))
        if step != .complete { #expect(!log.contains("complete")) }
        if step == .initiate {
            // No upload id yet: nothing to abort.
            #expect(!log.contains { $0.hasPrefix("perform abortUpload") })
        } else {
            // deleteUploadIdOnCancelling: the upload is aborted and the record removed.
            #expect(log.contains { $0.hasPrefix("perform abortUpload") })
            #expect(log.last == "delete record")
        }
        if case .save(let number) = step {
            // A save that was under way when the cancel came still went through.
            #expect(effects.saved.count == number)
        }
    }

    @Test(arguments: steps)
    func aPauseAtAnyStepKeepsTheUploadAndTheRecord(step: Step) async {
        let effects = ScriptedUploadEffects(troubles: [step: .pause])
        let (end, driver) = await runScriptedUpload(effects, parts: 3)
        #expect(end.name == "paused")
        let log = effects.log
        #expect(!log.contains("delete record"))
        #expect(!log.contains { $0.hasPrefix("perform abortUpload") })
        if step != .initiate {
            // The state to resume from is the last record saved.
            #expect(driver.machine.record?.parts == effects.saved.last?.parts)
        }
    }

    @Test(arguments: steps)
    func aFailureAtAnyStepFailsWithItsErrorAndKeepsTheRecord(step: Step) async {
        let effects = ScriptedUploadEffects(
            troubles: [step: .fail(times: 100, error: ScriptedUploadEffects.networkFailure)])
        let (end, driver) = await runScriptedUpload(effects, parts: 3, partAttempts: 2)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        let log = effects.log
        #expect(!log.contains("delete record"))
        #expect(!log.contains { $0.hasPrefix("perform abortUpload") })
        #expect(Self.partsTried(log) <= Self.partsBefore(step) + (Self.isPart(step) ? 1 : 0))
        if case .part(let number) = step { #expect(effects.attempts(of: number) == 2) }
        if case .save(let number) = step {
            // The saves before the failed one went through.
            #expect(effects.saved.count == number - 1)
        } else if step != .initiate {
            #expect(effects.saved.last?.parts.count == Self.partsBefore(step))
        }
    }

    @Test func aFailedListingFailsAndKeepsTheRecord() async {
        let effects = ScriptedUploadEffects(
            troubles: [.listParts: .fail(times: 1, error: ScriptedUploadEffects.networkFailure)])
        let (end, driver) = await runScriptedUpload(
            effects, parts: 3, record: .loaded(scriptedRecord(parts: 3, confirmed: [1])))
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        #expect(effects.log == ["listParts"])
    }

    @Test func aCancelWhileOtherPartsAreInFlightCancelsThem() async {
        // Part 1 would never end by itself: only the driver's cancel of the parts in flight ends it.
        let effects = ScriptedUploadEffects(troubles: [.part(1): .block, .part(2): .cancel])
        let (end, _) = await runScriptedUpload(effects, parts: 4, threadNum: 2)
        #expect(end.name == "cancelled")
        #expect(effects.attempts(of: 3) == 0)
        #expect(effects.saved.last?.parts.isEmpty == true)
    }

    @Test func aFailureWhileOtherPartsAreInFlightCancelsThem() async {
        let effects = ScriptedUploadEffects(
            troubles: [.part(1): .block, .part(2): .fail(times: 1, error: ScriptedUploadEffects.networkFailure)])
        let (end, driver) = await runScriptedUpload(effects, parts: 4, threadNum: 2)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        #expect(effects.attempts(of: 3) == 0)
    }

    /// How many parts were tried (each counted once).
    static func partsTried(_ log: [String]) -> Int { Set(log.filter { $0.hasPrefix("part") }).count }

    static func isPart(_ step: Step) -> Bool {
        if case .part = step { true } else { false }
    }

    /// How many parts were confirmed before `step` (of the three-part upload, one part at a time).
    static func partsBefore(_ step: Step) -> Int {
        switch step {
        case .initiate, .listParts: 0
        case .save(let number): number - 1
        case .part(let number): number - 1
        case .recheck, .complete: 3
        }
    }
}
