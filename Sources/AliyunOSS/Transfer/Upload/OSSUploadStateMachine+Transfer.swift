import OSSResumable

/// How the ``OSSTransferDriver`` runs an upload's actions.
extension OSSUploadStateMachine: OSSTransferMachine {
    var expectedBytes: Int64 { totalBytes }

    static var cancelledEvent: Event { .cancelled }

    static var pausedEvent: Event { .paused }

    static func step(for action: Action) -> OSSTransferStep<OSSUploadRecord> {
        switch action {
        case .initiateUpload: .ask(restartsProgress: true)
        case .listParts, .recheckFile, .complete, .checkCompletedObject: .ask(restartsProgress: false)
        case .abortUpload: .perform
        case .writeRecord(let record): .saveRecord(record)
        case .deleteRecord: .deleteRecord
        case .discardRecord(let reason): .discardRecord(reason)
        case .uploadParts(_, let parts): .transferParts(parts)
        case .reportProgress(let step, let total, let expected): .reportProgress(step: step, total: total, expected: expected)
        case .fail(let failure): .stop(failure.end)
        case .finish(let crc): .stop(.finished(crc64: crc))
        }
    }
}
