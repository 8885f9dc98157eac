import OSSResumable

/// A background transfer as its record describes it (``OSSBackgroundTransferService/backgroundTransfers()``).
public struct OSSBackgroundTransferStatus: Sendable, Hashable {
    public var kind: OSSTransferKind
    public var transferId: String
    public var bucket: String
    public var key: String
    public var partsDone: Int
    public var partsQueued: Int
    public var totalParts: Int
    /// Bytes of confirmed parts.
    public var completedBytes: Int64
    public var totalBytes: Int64

    init(
        kind: OSSTransferKind, transferId: String, bucket: String, key: String, states: [OSSBackgroundPartState],
        completedBytes: Int64, totalBytes: Int64
    ) {
        self.kind = kind
        self.transferId = transferId
        self.bucket = bucket
        self.key = key
        partsDone = states.filter(\.isDone).count
        partsQueued = states.filter { if case .queued = $0 { true } else { false } }.count
        totalParts = states.count
        self.completedBytes = completedBytes
        self.totalBytes = totalBytes
    }
}
