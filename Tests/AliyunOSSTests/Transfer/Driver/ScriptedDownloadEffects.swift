@testable import AliyunOSS
import NIOConcurrencyHelpers
import OSSResumable

/// A scripted stand-in for the download's effects, to test the ``OSSTransferDriver`` with the download state
/// machine: every step answers at once, as ``TransferScript`` says; part `n` has the CRC-64 `n`.
final class ScriptedDownloadEffects: ScriptedEffects, Sendable {
    typealias Machine = OSSDownloadStateMachine

    static let replaced = OSSServerError(statusCode: 412, code: "PreconditionFailed", message: "scripted: replaced")

    let script: TransferScript
    /// What a second HEAD answers (after the object was replaced).
    let replacement: OSSObjectIdentity
    /// For a part number: the byte counts it posts as checkpoints (CRC-64 = the count) before its trouble.
    let checkpoints: [Int: [Int64]]
    /// The partial parts' prefixes (number, bytes) of each record saved, in order.
    let savedPartials = NIOLockedValueBox<[[OSSDownloadRecord.PartialPart]]>([])
    /// The partial parts of the last record saved.
    var lastSavedPartials: [OSSDownloadRecord.PartialPart]? { savedPartials.withLockedValue { $0.last } }

    init(
        troubles: [TransferScript.Step: TransferScript.Trouble] = [:], replacement: OSSObjectIdentity,
        checkpoints: [Int: [Int64]] = [:]
    ) {
        script = TransferScript(troubles: troubles, granularity: .confirmedParts)
        self.replacement = replacement
        self.checkpoints = checkpoints
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

    func save(_ record: OSSDownloadRecord) async throws {
        try script.save(parts: record.parts.map(\.number))
        savedPartials.withLockedValue { $0.append(record.partials) }
    }

    func partMover(for action: Machine.Action) async throws -> PartMover {
        let script = self.script
        let checkpoints = self.checkpoints
        return { part, progress, checkpoint in
            for bytes in checkpoints[part.number] ?? [] {
                checkpoint(.partProgressed(number: part.number, bytes: bytes, crc64: UInt64(bytes)))
            }
            return try await script.move(
                part, progress: progress, event: .partDownloaded(number: part.number, crc64: UInt64(part.number)))
        }
    }

    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event> {
        (error as? OSSServerError)?.statusCode == 412
            ? .news(.objectChanged) : .failure(.failed(resumable: OSSErrorDisposition(error) != .final))
    }

    func rank(ofPartFailure error: any Error) -> Int { (error as? OSSServerError)?.statusCode == 412 ? 1 : 0 }
}
