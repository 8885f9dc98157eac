/// Where one part of a background upload stands, as its record says.
package enum OSSBackgroundPartState: Sendable, Hashable, Codable {
    /// Not handed to the system yet (no temporary copy needed yet).
    case waiting
    /// Handed to the system as a task with this description; its outcome is not known yet.
    case queued(description: String)
    /// Confirmed: the server's `x-oss-hash-crc64ecma` equalled the part copy's CRC-64.
    case done(etag: String, crc64: UInt64)

    /// Whether the part is confirmed.
    package var isDone: Bool {
        if case .done = self { return true }
        return false
    }
}
