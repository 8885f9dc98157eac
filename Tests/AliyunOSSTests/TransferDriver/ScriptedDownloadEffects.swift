@testable import AliyunOSS
import OSSResumable

/// A scripted stand-in for the download's effects, to test the ``OSSTransferDriver`` with the download state
/// machine: every step answers at once, as ``TransferScript`` says; part `n` has the CRC-64 `n`.
final class ScriptedDownloadEffects: ScriptedEffects, Sendable {
    typealias Machine = OSSDownloadStateMachine

    static let replaced = OSSServerError(statusCode: 412, code: "PreconditionFailed", message: "scripted: replaced")

    let script: TransferScript
    /// What a second HEAD answers (after the object was replaced).
    let replacement: OSSObjectIdentity

    init(troubles: [TransferScript.Step: TransferScript.Trouble] = [:], replacement: OSSObjectIdentity) {
        script = TransferScript(troubles: troubles, granularity: .confirmedParts)
        self.replacement = replacement
    }

    func answer(_ action: Machine.Action, machine: Machine) async throws -> Machine.Event {
        try script.meet(.head, logging: "head")
        return .objectHeaded(replacement)
    }

    func perform(_ action: Machine.Action) async throws {
        switch action {
        case .prepareTempFile: try script.meet(.prepare, logging: "prepare")
        case .commitTempFile: try script.meet(.commit, logging: "commit")
        default: script.note("delete temp")
        }
    }

    func save(_ record: OSSDownloadRecord) async throws { try script.save(parts: record.parts.map(\.number)) }

    func partMover(for action: Machine.Action) async throws -> PartMover {
        let script = self.script
        return { part, progress in
            try await script.move(
                part, progress: progress, event: .partDownloaded(number: part.number, crc64: UInt64(part.number)))
        }
    }

    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event> {
        (error as? OSSServerError)?.statusCode == 412
            ? .news(.objectChanged) : .failure(.failed(resumable: Self.isTransient(error)))
    }

    func rank(ofPartFailure error: any Error) -> Int { (error as? OSSServerError)?.statusCode == 412 ? 1 : 0 }
}
