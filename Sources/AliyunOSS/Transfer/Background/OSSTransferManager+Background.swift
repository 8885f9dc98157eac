import OSSResumable

extension OSSTransferManager {
    /// The ``backgroundService``'s transfers in the manager's terms (``transfers()`` lists them after the others):
    /// `ongoing` while the system holds some of their parts (and they are not paused), `suspended` when it holds
    /// none (paused, or waiting for the next attach to submit them), with the bytes their records confirm;
    /// `noEntry` with the ``OSSTransfer/problem`` for a record that cannot be read. Their ids are their transfer ids.
    nonisolated func backgroundListing() throws -> [OSSTransfer] {
        guard let service = backgroundService else { return [] }
        return try service.recordStatuses().compactMap { entry in
            var transfer: OSSTransfer
            switch entry.status {
            case .success(.none):
                return nil  // removed meanwhile
            case .success(let status?):
                transfer = OSSTransfer(
                    id: status.transferId, kind: status.kind,
                    state: status.partsQueued > 0 && !status.paused ? .ongoing : .suspended, bucketName: status.bucket,
                    objectKey: status.key, filePath: status.filePath, uploadId: status.uploadId,
                    temporaryFilePath: status.temporaryFilePath, partSize: status.partSize, bytesDone: status.completedBytes,
                    totalBytes: status.totalBytes, completedParts: status.partsDone, problem: nil)
            case .failure(let error):
                transfer = OSSTransfer(
                    id: entry.transferId, kind: entry.kind, state: .noEntry, bucketName: "", objectKey: "", filePath: "",
                    uploadId: nil, temporaryFilePath: nil, partSize: 0, bytesDone: 0, totalBytes: 0, completedParts: 0,
                    problem: "\(error)")
            }
            transfer.isBackground = true
            return transfer
        }
    }

    /// Whether `id` is a transfer of the ``backgroundService`` (foreground ids are record file names).
    nonisolated func isBackgroundTransfer(_ id: String) throws -> Bool {
        guard let backgroundService, OSSRecordDirectory.kind(ofRecordName: id) == nil else { return false }
        return try backgroundService.hasTransfer(id)
    }

    /// Refuses `operation` of a foreground transfer for a background transfer, naming the call that does it.
    nonisolated func refuseBackground(_ id: String, _ operation: String) throws {
        guard try isBackgroundTransfer(id) else { return }
        throw OSSClientError.invalidArgument(
            "transfer \(id) is a background transfer: the system carries its parts, so there is no run to \(operation) here; "
                + "use resumeBackground(_:) / pauseBackground(_:)")
    }

    nonisolated func requireBackgroundService() throws -> OSSBackgroundTransferService {
        guard let backgroundService else {
            throw OSSClientError.invalidArgument("this transfer manager has no background service")
        }
        return backgroundService
    }

    /// Attaches the ``backgroundService`` (``OSSBackgroundTransferService/reconcile()``) and reports each
    /// background transfer it reconciled on ``events`` and ``events(for:)``, with the other transfers'
    /// vocabulary: `.state` (`ongoing` while the system holds parts, `suspended` when paused or none is held),
    /// `.progress` from the confirmed bytes (after a relaunch it starts from what is done), then `.completed`;
    /// or `.failed` (the object changed, or the attach could not reconcile it).
    ///
    /// - Throws: `invalidArgument` without a background service; what the attach throws.
    @discardableResult
    public nonisolated func reconcileBackground() async throws -> OSSBackgroundReconcileReport {
        let report = try await requireBackgroundService().reconcile()
        publish(report)
        return report
    }

    /// Pauses background transfer `id` (``OSSBackgroundTransferService/pause(transferId:)``): its tasks are
    /// withdrawn from the system, its record and confirmed parts kept; reports `.state(.suspended)`.
    ///
    /// - Throws: `invalidArgument` without a background service or when `id` is not one of its transfers;
    ///   `transferInUse` when another process holds its record.
    public nonisolated func pauseBackground(_ id: String) async throws {
        try await requireBackgroundService().pause(transferId: id)
        hub.yield(OSSTransferEvent(id: id, change: .state(.suspended)))
    }

    /// Resumes background transfer `id` (``OSSBackgroundTransferService/resume(transferId:)``): the parts that
    /// are not confirmed are handed to the system again, and the attach is reported as by
    /// ``reconcileBackground()``. Returns when the system holds them; the system decides when they run.
    ///
    /// - Throws: as ``pauseBackground(_:)``.
    @discardableResult
    public nonisolated func resumeBackground(_ id: String) async throws -> OSSBackgroundReconcileReport {
        let report = try await requireBackgroundService().resume(transferId: id)
        publish(report)
        return report
    }

    /// Ends background transfer `id` for good (``OSSBackgroundTransferService/cancel(transferId:)``) and reports
    /// `.terminated`. ``terminate(_:)`` calls it for a background transfer.
    public nonisolated func terminateBackground(_ id: String) async throws {
        try await requireBackgroundService().cancel(transferId: id)
        hub.yield(OSSTransferEvent(id: id, change: .terminated))
    }

    /// Reports an attach's transfers on the event streams.
    private nonisolated func publish(_ report: OSSBackgroundReconcileReport) {
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
                let held = !transfer.paused && !(transfer.partsInFlight.isEmpty && transfer.partsSubmitted.isEmpty)
                hub.yield(OSSTransferEvent(id: id, change: .state(held ? .ongoing : .suspended)))
                hub.yield(OSSTransferEvent(id: id, change: .progress(bytesDone: transfer.completedBytes, totalBytes: transfer.totalBytes)))
            }
        }
    }
}
