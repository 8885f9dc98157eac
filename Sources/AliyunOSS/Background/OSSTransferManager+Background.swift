import OSSResumable

extension OSSTransferManager {
    /// The background transfers of `service`, in the transfer manager's terms: `ongoing` while the system holds
    /// some of their parts, `suspended` when none is in its hands (the next ``OSSBackgroundTransferService/reconcile()``
    /// submits them), with the bytes their records confirm. Their ids are their transfer ids.
    public nonisolated func backgroundTransfers(of service: OSSBackgroundTransferService) throws -> [OSSTransfer] {
        try service.backgroundTransfers().map { status in
            OSSTransfer(
                id: status.transferId, kind: status.kind, state: status.partsQueued > 0 ? .ongoing : .suspended,
                bucketName: status.bucket, objectKey: status.key, filePath: status.filePath, uploadId: status.uploadId,
                temporaryFilePath: status.temporaryFilePath, partSize: status.partSize, bytesDone: status.completedBytes,
                totalBytes: status.totalBytes, completedParts: status.partsDone, problem: nil)
        }
    }

    /// Attaches `service` (``OSSBackgroundTransferService/reconcile()``) and reports each background transfer it
    /// reconciled on ``events`` and ``events(for:)``, with the other transfers' vocabulary: `.state` (`ongoing`
    /// while the system holds parts), `.progress` from the confirmed bytes (after a relaunch it starts from what
    /// is done), then `.completed`; or `.failed` (the object changed, or the attach could not reconcile it).
    public nonisolated func reconcileBackground(_ service: OSSBackgroundTransferService) async throws
        -> OSSBackgroundReconcileReport
    {
        let report = try await service.reconcile()
        for transfer in report.transfers where !transfer.busy {
            let id = transfer.transferId
            if let error = transfer.error {
                hub.yield(OSSTransferEvent(id: id, change: .failed(message: error)))
            } else if transfer.objectChanged {
                hub.yield(OSSTransferEvent(id: id, change: .failed(message: "objectChanged: the object was replaced")))
            } else if transfer.finished {
                hub.yield(OSSTransferEvent(id: id, change: .progress(bytesDone: transfer.totalBytes, totalBytes: transfer.totalBytes)))
                hub.yield(OSSTransferEvent(id: id, change: .completed))
            } else {
                let held = !(transfer.partsInFlight.isEmpty && transfer.partsSubmitted.isEmpty)
                hub.yield(OSSTransferEvent(id: id, change: .state(held ? .ongoing : .suspended)))
                hub.yield(OSSTransferEvent(id: id, change: .progress(bytesDone: transfer.completedBytes, totalBytes: transfer.totalBytes)))
            }
        }
        return report
    }

    /// Ends background transfer `id` of `service` for good (``OSSBackgroundTransferService/cancel(transferId:)``)
    /// and reports `.terminated`, as ``terminate(_:)`` does for the others.
    public nonisolated func terminateBackground(_ id: String, of service: OSSBackgroundTransferService) async throws {
        try await service.cancel(transferId: id)
        hub.yield(OSSTransferEvent(id: id, change: .terminated))
    }
}
