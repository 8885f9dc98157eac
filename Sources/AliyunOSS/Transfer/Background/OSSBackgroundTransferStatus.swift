import OSSResumable

/// A background transfer as its record describes it (``OSSBackgroundTransferService/backgroundTransfers()``).
public struct OSSBackgroundTransferStatus: Sendable, Hashable {
    public var kind: OSSTransferKind
    public var transferId: String
    public var bucket: String
    public var key: String
    /// The local file: the source of an upload, the destination of a download.
    public var filePath: String
    /// The multipart upload id (uploads), or the download's temporary file (downloads).
    public var uploadId: String?
    public var temporaryFilePath: String?
    public var partSize: Int64
    public var partsDone: Int
    public var partsQueued: Int
    public var totalParts: Int
    /// Bytes of confirmed parts.
    public var completedBytes: Int64
    public var totalBytes: Int64
    /// Paused by the app (``OSSBackgroundTransferService/pause(transferId:)``): the system holds no new task of it.
    public var paused: Bool

    init(upload record: OSSBackgroundUploadRecord) {
        self.init(
            kind: .upload, transferId: record.transferId, bucket: record.bucket, key: record.key, filePath: record.filePath,
            partSize: record.partSize, states: record.parts.map(\.state), completedBytes: record.completedBytes,
            totalBytes: record.fileSize, paused: record.pausedAt != nil)
        uploadId = record.uploadId
    }

    init(download record: OSSBackgroundDownloadRecord) {
        self.init(
            kind: .download, transferId: record.transferId, bucket: record.bucket, key: record.key,
            filePath: record.destinationPath, partSize: record.partSize, states: record.parts.map(\.state),
            completedBytes: record.completedBytes, totalBytes: record.objectSize, paused: record.pausedAt != nil)
        temporaryFilePath = record.tempFilePath
    }

    private init(
        kind: OSSTransferKind, transferId: String, bucket: String, key: String, filePath: String, partSize: Int64,
        states: [OSSBackgroundPartState], completedBytes: Int64, totalBytes: Int64, paused: Bool
    ) {
        self.kind = kind
        self.transferId = transferId
        self.bucket = bucket
        self.key = key
        self.filePath = filePath
        self.partSize = partSize
        partsDone = states.filter(\.isDone).count
        partsQueued = states.filter { if case .queued = $0 { true } else { false } }.count
        totalParts = states.count
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
        self.paused = paused
    }
}
