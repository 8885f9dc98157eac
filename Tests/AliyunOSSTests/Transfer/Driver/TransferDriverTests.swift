@testable import AliyunOSS
import OSSResumable
import Testing

/// The transfer driver itself, over scripted effects and the real upload state machine: the order of the effects,
/// the concurrency limit, retries per part, progress.
@Suite("transfer driver", .timeLimit(.minutes(1)))
struct TransferDriverTests {
    @Test func performsTheMachinesActionsInOrder() async {
        let effects = ScriptedUploadEffects()
        let (end, _) = await runScriptedUpload(effects, parts: 3)
        #expect(end.name == "finished")
        #expect(
            effects.script.log == [
                "initiate", "save 0", "part 1", "save 1", "part 2", "save 2", "part 3", "save 3", "recheck", "complete",
                "delete record",
            ])
        #expect(effects.script.reports == [scriptedPartSize, 2 * scriptedPartSize, 3 * scriptedPartSize])
    }

    @Test func aResumeListsThenMovesOnlyTheMissingParts() async {
        let listed = [OSSUploadStateMachine.ServerPart(number: 1, size: scriptedPartSize, etag: "etag-1", crc64: 1)]
        let effects = ScriptedUploadEffects(listed: listed)
        let (end, _) = await runScriptedUpload(
            effects, parts: 3, record: .loaded(scriptedRecord(parts: 3, confirmed: [1])))
        #expect(end.name == "finished")
        #expect(
            effects.script.log == [
                "listParts", "save 1", "part 2", "save 2", "part 3", "save 3", "recheck", "complete", "delete record",
            ])
        #expect(effects.script.reports == [scriptedPartSize, 2 * scriptedPartSize, 3 * scriptedPartSize])
    }

    @Test(arguments: [1, 2, 4])
    func neverMovesMoreThanThreadNumPartsAtOnce(threadNum: Int) async {
        // The first parts wait until `threadNum` of them are in flight: the limit is reached, and never passed.
        var troubles: [TransferScript.Step: TransferScript.Trouble] = [:]
        for number in 1...threadNum { troubles[.part(number)] = .gather(threadNum) }
        let effects = ScriptedUploadEffects(troubles: troubles)
        let (end, _) = await runScriptedUpload(effects, parts: 9, threadNum: threadNum)
        #expect(end.name == "finished")
        #expect(effects.script.mostInFlight == threadNum)
        #expect(effects.script.saved.last?.count == 9)
    }

    @Test func aPartThatFailsIsTriedAgainUpToTheLimit() async {
        let effects = ScriptedUploadEffects(
            troubles: [.part(2): .fail(times: 2, error: TransferScript.networkFailure)])
        let (end, _) = await runScriptedUpload(effects, parts: 3, partAttempts: 3)
        #expect(end.name == "finished")
        #expect(effects.script.attempts(of: 2) == 3)
        #expect(effects.script.attempts(of: 1) == 1)
    }

    @Test func aPartThatKeepsFailingFailsTheTransferAndKeepsTheRecord() async {
        let effects = ScriptedUploadEffects(
            troubles: [.part(2): .fail(times: 100, error: TransferScript.networkFailure)])
        let (end, driver) = await runScriptedUpload(effects, parts: 3, partAttempts: 3)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .networkError)
        #expect(effects.script.attempts(of: 2) == 3)
        #expect(effects.script.attempts(of: 3) == 0)
        #expect(effects.script.saved.last == [1])
        #expect(!effects.script.log.contains("delete record"))
        #expect(!effects.script.log.contains { $0.hasPrefix("perform abortUpload") })
    }

    @Test func aFailureThatIsNotRetryableIsNotTriedAgain() async {
        let refused = OSSClientError(.invalidArgument, "scripted refusal")
        let effects = ScriptedUploadEffects(troubles: [.part(1): .fail(times: 1, error: refused)])
        let (end, driver) = await runScriptedUpload(effects, parts: 2, partAttempts: 3)
        #expect(end.name == "operationFailed")
        #expect((driver.cause as? OSSClientError)?.code == .invalidArgument)
        #expect(effects.script.attempts(of: 1) == 1)
    }

    /// The driver tries a part again exactly when the request pipeline's retry policy would retry its failure:
    /// both ask one disposition (before, the policy retried RequestTimeTooSkewed and InvalidDigest and the driver
    /// did not). NoSuchUpload is news to the upload machine rather than a failure, so it is left out.
    @Test(arguments: OSSServerError.knownCodes.keys.sorted().filter { $0 != "NoSuchUpload" })
    func aPartIsTriedAgainExactlyWhenThePolicyWouldRetry(code: String) async throws {
        let known = try #require(OSSServerError.knownCodes[code])
        let error = OSSServerError(statusCode: known.status, code: code, message: "scripted")
        let effects = ScriptedUploadEffects(troubles: [.part(1): .fail(times: 1, error: error)])
        let (end, _) = await runScriptedUpload(effects, parts: 2, partAttempts: 2)
        let retried = OSSRetryPolicy.isRetryable(error)
        #expect(retried == (known.disposition == .retryable))
        #expect(effects.script.attempts(of: 1) == (retried ? 2 : 1), "\(code)")
        #expect(end.name == (retried ? "finished" : "operationFailed"), "\(code)")
    }

    @Test func byteProgressOnlyGrowsAndEndsAtTheTotal() async {
        let effects = ScriptedUploadEffects(
            troubles: [.part(4): .fail(times: 1, error: TransferScript.networkFailure)], granularity: .bytes)
        let (end, _) = await runScriptedUpload(effects, parts: 9, threadNum: 3, partAttempts: 2)
        #expect(end.name == "finished")
        let reports = effects.script.reports
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0 < $1 })
        #expect(reports.last == 9 * scriptedPartSize)
    }
}
