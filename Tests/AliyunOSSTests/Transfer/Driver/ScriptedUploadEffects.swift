@testable import AliyunOSS
import OSSResumable

/// A scripted stand-in for the upload's effects, to test the ``OSSTransferDriver`` itself (the real effects are
/// tested end to end against the local server): every step answers at once, as ``TransferScript`` says.
final class ScriptedUploadEffects: ScriptedEffects, Sendable {
    typealias Machine = OSSUploadStateMachine

    static let uploadId = "scripted-upload"

    let script: TransferScript
    /// What ListParts answers.
    let listed: [Machine.ServerPart]
    /// The background record writer, when records are saved in the background while parts move (as the real
    /// upload does).
    let writer: OSSTransferRecordWriter<OSSUploadRecord>?

    init(
        troubles: [TransferScript.Step: TransferScript.Trouble] = [:],
        granularity: OSSTransferProgressGranularity = .confirmedParts, listed: [Machine.ServerPart] = [],
        savesInBackground: Bool = false
    ) {
        script = TransferScript(troubles: troubles, granularity: granularity)
        self.listed = listed
        let script = self.script
        writer = savesInBackground
            ? OSSTransferRecordWriter { record in try script.save(parts: record.parts.map(\.number)) } : nil
    }

    func answer(_ action: Machine.Action, machine: Machine) async throws -> Machine.Event {
        switch action {
        case .initiateUpload:
            try script.meet(.initiate, logging: "initiate")
            return .initiated(uploadId: Self.uploadId)
        case .listParts:
            try script.meet(.listParts, logging: "listParts")
            return .listedParts(listed)
        case .recheckFile:
            try script.meet(.recheck, logging: "recheck")
            return .fileRechecked(machine.fileIdentity!)
        case .complete:
            try script.meet(.complete, logging: "complete")
            return .completed(serverCRC64: machine.expectedCRC64)
        default:
            throw OSSClientError(.exceptionCaught, "not scripted: \(action)")
        }
    }

    func perform(_ action: Machine.Action) async throws { script.note("perform \(action)") }

    func save(_ record: OSSUploadRecord) async throws { try script.save(parts: record.parts.map(\.number)) }

    func backgroundWriter() -> OSSTransferRecordWriter<OSSUploadRecord>? { writer }

    func partMover(for action: Machine.Action) async throws -> PartMover {
        let script = self.script
        return { part, progress, _ in
            try await script.move(
                part, progress: progress,
                event: .partUploaded(
                    uploadId: Self.uploadId, number: part.number, etag: "etag-\(part.number)",
                    localCRC64: UInt64(part.number), serverCRC64: UInt64(part.number)))
        }
    }

    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event> { .failure(.failed) }

    func rank(ofPartFailure error: any Error) -> Int { 0 }
}
