import OSSResumable

/// How the ``OSSTransferDriver`` runs a download's actions.
extension OSSDownloadStateMachine: OSSTransferMachine {
    var expectedBytes: Int64 { plan?.totalLength ?? 0 }

    static var cancelledEvent: Event { .cancelled }

    static var pausedEvent: Event { .paused }

    static func step(for action: Action) -> OSSTransferStep<OSSDownloadRecord> {
        switch action {
        case .downloadParts(_, _, _, let parts): .transferParts(parts)
        case .writeRecord(let record): .saveRecord(record)
        case .reportProgress(let step, let total, let expected): .reportProgress(step: step, total: total, expected: expected)
        case .fail(.operationFailed): .stop(.operationFailed)
        case .prepareTempFile, .deleteTempFile, .commitTempFile: .perform
        case .fail(.error(let error)): .stop(.failed(error))
        case .deleteRecord: .deleteRecord
        case .fail(.paused): .stop(.paused)
        case .discardRecord(let reason): .discardRecord(reason)
        case .fail(.cancelled): .stop(.cancelled)
        // A HEAD again: the object was replaced and the download starts over.
        case .headObject: .ask(restartsProgress: true)
        case .finish(let crc): .stop(.finished(crc64: crc))
        }
    }
}
