import OSSResumable

/// How the ``OSSTransferDriver`` runs a download's actions.
extension OSSDownloadStateMachine: OSSTransferMachine {
    var expectedBytes: Int64 { plan?.totalLength ?? 0 }

    static var cancelledEvent: Event { .cancelled }

    static var pausedEvent: Event { .paused }

    static func step(for action: Action) -> OSSTransferStep<OSSDownloadRecord> {
        switch action {
        // A HEAD again: the object was replaced and the download starts over.
        case .headObject: .ask(restartsProgress: true)
        case .prepareTempFile, .deleteTempFile, .commitTempFile: .perform
        case .writeRecord(let record): .saveRecord(record)
        case .deleteRecord: .deleteRecord
        case .discardRecord(let reason): .discardRecord(reason)
        case .downloadParts(_, _, _, _, let parts): .transferParts(parts)
        case .reportProgress(let step, let total, let expected): .reportProgress(step: step, total: total, expected: expected)
        case .fail(let failure): .stop(failure.end)
        case .finish(let crc): .stop(.finished(crc64: crc))
        }
    }
}
