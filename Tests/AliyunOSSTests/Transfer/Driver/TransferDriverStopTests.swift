@testable import AliyunOSS
import OSSResumable
import Testing

/// Pause, cancel and failure at every step of a scripted three-part upload (threadNum 1, so the steps come in
/// the order initiate, save 0, part 1, save 1, part 2, save 2, part 3, save 3, recheck, complete).
@Suite("transfer driver: stops and failures", .timeLimit(.minutes(1)))
struct TransferDriverStopTests {
    typealias Step = TransferScript.Step

    static let steps: [Step] = [.initiate, .save(1), .part(1), .save(2), .part(2), .save(4), .recheck, .complete]

    @Test(arguments: [false, true])
    func aRequestStoppedBeforeItStartsDoesNothing(pause: Bool) async {
        let effects = ScriptedUploadEffects()
        if pause { effects.script.cancellation.pause() } else { effects.script.cancellation.cancel() }
        let (end, _) = await runScriptedUpload(effects, parts: 3)
        #expect(end.name == (pause ? "paused" : "cancelled"))
        #expect(effects.script.log.isEmpty)
    }

    @Test(arguments: steps)
    func aCancelAtAnyStepCancels(step: Step) async {
        let (effects, _) = await Self.run(meeting: .cancel, at: step, expecting: "cancelled")
        let log = effects.script.log
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
            #expect(effects.script.saved.count == number)
        }
    }

    @Test(arguments: steps)
    func aPauseAtAnyStepKeepsTheUploadAndTheRecord(step: Step) async {
        let (effects, driver) = await Self.run(meeting: .pause, at: step, expecting: "paused")
        let log = effects.script.log
        #expect(!log.contains("delete record"))
        #expect(!log.contains { $0.hasPrefix("perform abortUpload") })
        if step != .initiate {
            // The state to resume from is the last record saved.
            #expect(driver.machine.record?.parts.map(\.number) == effects.script.saved.last)
        }
    }

    @Test(arguments: steps)
    func aFailureAtAnyStepFailsWithItsErrorAndKeepsTheRecord(step: Step) async {
        let (effects, driver) = await Self.run(
            meeting: .fail(times: 100, error: TransferScript.networkFailure), at: step, expecting: "operationFailed",
            partAttempts: 2)
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        let log = effects.script.log
        #expect(!log.contains("delete record"))
        #expect(!log.contains { $0.hasPrefix("perform abortUpload") })
        if case .part(let number) = step { #expect(effects.script.attempts(of: number) == 2) }
        if case .save(let number) = step {
            // The saves before the failed one went through.
            #expect(effects.script.saved.count == number - 1)
        } else if step != .initiate {
            #expect(effects.script.saved.last?.count == Self.partsBefore(step))
        }
    }

    @Test func aBackgroundSaveThatFailsStopsTheParts() async {
        // Save 1 is the record after Initiate (before parts move); save 2, in the background, after part 1.
        let effects = ScriptedUploadEffects(
            troubles: [.save(2): .fail(times: 1, error: TransferScript.networkFailure)], savesInBackground: true)
        let writer = effects.writer!
        // Part 2 ends only once the save after part 1 has failed: the driver must stop there.
        effects.script.set(.until { writer.failure != nil }, for: .part(2))
        let (end, _) = await runScriptedUpload(effects, parts: 6)
        #expect(end.name == "operationFailed")
        #expect(!effects.script.log.contains("part 3"), "\(effects.script.log)")
        #expect(!effects.script.log.contains("complete"))
        #expect(!effects.script.log.contains("delete record"))
    }

    @Test func aFailedListingFailsAndKeepsTheRecord() async {
        let effects = ScriptedUploadEffects(
            troubles: [.listParts: .fail(times: 1, error: TransferScript.networkFailure)])
        let (end, driver) = await runScriptedUpload(
            effects, parts: 3, record: .loaded(scriptedRecord(parts: 3, confirmed: [1])))
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        #expect(effects.script.log == ["listParts"])
    }

    @Test func aCancelWhileOtherPartsAreInFlightCancelsThem() async {
        // Part 1 would never end by itself: only the driver's cancel of the parts in flight ends it.
        let effects = ScriptedUploadEffects(troubles: [.part(1): .block, .part(2): .cancel])
        let (end, _) = await runScriptedUpload(effects, parts: 4, threadNum: 2)
        #expect(end.name == "cancelled")
        #expect(effects.script.attempts(of: 3) == 0)
        #expect(effects.script.saved.last?.isEmpty == true)
    }

    @Test func aFailureWhileOtherPartsAreInFlightCancelsThem() async {
        let effects = ScriptedUploadEffects(
            troubles: [.part(1): .block, .part(2): .fail(times: 1, error: TransferScript.networkFailure)])
        let (end, driver) = await runScriptedUpload(effects, parts: 4, threadNum: 2)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        #expect(effects.script.attempts(of: 3) == 0)
    }

    /// Runs the three-part upload meeting `trouble` at `step`: it ends as `expected`, and no part after the step
    /// was tried.
    static func run(
        meeting trouble: TransferScript.Trouble, at step: Step, expecting expected: String, partAttempts: Int = 1
    ) async -> (ScriptedUploadEffects, OSSTransferDriver<ScriptedUploadEffects>) {
        let effects = ScriptedUploadEffects(troubles: [step: trouble])
        let (end, driver) = await runScriptedUpload(effects, parts: 3, partAttempts: partAttempts)
        #expect(end.name == expected)
        #expect(partsTried(effects.script.log) <= partsBefore(step) + (isPart(step) ? 1 : 0))
        return (effects, driver)
    }

    /// How many parts were tried (each counted once).
    static func partsTried(_ log: [String]) -> Int { Set(log.filter { $0.hasPrefix("part") }).count }

    static func isPart(_ step: Step) -> Bool {
        if case .part = step { true } else { false }
    }

    /// How many parts were confirmed before `step` (of the three-part upload, one part at a time).
    static func partsBefore(_ step: Step) -> Int {
        switch step {
        case .initiate, .listParts, .head, .prepare: 0
        case .save(let number): number - 1
        case .part(let number): number - 1
        case .recheck, .complete, .commit: 3
        }
    }
}
