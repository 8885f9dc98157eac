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
}
