/// What the system reported for one finished part task, as the reconciler needs it.
package struct OSSBackgroundPartCompletion: Sendable, Hashable {
    /// The task's description (`"<transfer id>/<part number>"`).
    package var description: String
    /// The HTTP status, or `nil` when the task ended without a response (network error, cancelled, force-quit).
    package var status: Int?
    /// The response's `ETag`, quotes kept.
    package var etag: String?
    /// The response's `x-oss-hash-crc64ecma`.
    package var serverCRC64: UInt64?

    package init(description: String, status: Int?, etag: String?, serverCRC64: UInt64?) {
        self.description = description
        self.status = status
        self.etag = etag
        self.serverCRC64 = serverCRC64
    }
}
