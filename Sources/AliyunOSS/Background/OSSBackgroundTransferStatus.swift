/// A background transfer as its record describes it (``OSSBackgroundTransferService/backgroundTransfers()``).
public struct OSSBackgroundTransferStatus: Sendable, Hashable {
    public var transferId: String
    public var bucket: String
    public var key: String
    public var partsDone: Int
    public var partsQueued: Int
    public var totalParts: Int
    /// Bytes of confirmed parts.
    public var completedBytes: Int64
    public var totalBytes: Int64
}
