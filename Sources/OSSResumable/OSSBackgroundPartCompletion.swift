/// What the system reported for one finished part task, as the reconciler needs it.
public struct OSSBackgroundPartCompletion: Sendable, Hashable {
    /// The task's description (`"<transfer id>/<part number>"`).
    public var description: String
    /// The HTTP status, or `nil` when the task ended without a response (network error, cancelled, force-quit).
    public var status: Int?
    /// The response's `ETag`, quotes kept.
    public var etag: String?
    /// The response's `x-oss-hash-crc64ecma`.
    public var serverCRC64: UInt64?

    public init(description: String, status: Int?, etag: String?, serverCRC64: UInt64?) {
        self.description = description
        self.status = status
        self.etag = etag
        self.serverCRC64 = serverCRC64
    }
}
