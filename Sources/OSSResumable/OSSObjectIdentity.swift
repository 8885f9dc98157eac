/// What a remote object looked like (from HEAD): the fields that change when the object is replaced.
package struct OSSObjectIdentity: Sendable, Hashable, Codable {
    /// The ETag as the server sent it (quotes kept).
    package let etag: String
    package let size: Int64
    /// The `Last-Modified` header text, compared verbatim.
    package let lastModified: String?
    /// The whole object's CRC-64 (`x-oss-hash-crc64ecma`), when the server sent one.
    package let crc64: UInt64?
    /// The version (`x-oss-version-id`) in a bucket with versioning, `nil` in one without. A download asks for this
    /// version on every request, so it ends with the version it began even when the key gets a new one meanwhile.
    package let versionId: String?

    package init(etag: String, size: Int64, lastModified: String?, crc64: UInt64?, versionId: String? = nil) {
        self.etag = etag
        self.size = size
        self.lastModified = lastModified
        self.crc64 = crc64
        self.versionId = versionId
    }

    /// The ETag without surrounding quotes, upper-cased: the form to compare and to send in `If-Match`.
    package var normalizedETag: String { OSSObjectIdentity.normalize(etag: etag) }

    /// Strips surrounding quotes (and a `W/` prefix) and upper-cases an ETag.
    package static func normalize(etag: String) -> String {
        var text = Substring(etag)
        if text.hasPrefix("W/") { text = text.dropFirst(2) }
        if text.count >= 2, text.first == "\"", text.last == "\"" { text = text.dropFirst().dropLast() }
        return text.uppercased()
    }

    /// Human-readable differences between `recorded` and `self`; empty when the object is the same.
    package func differences(from recorded: OSSObjectIdentity) -> [String] {
        var result: [String] = []
        if recorded.normalizedETag != normalizedETag { result.append("ETag \(recorded.etag) → \(etag)") }
        if recorded.size != size { result.append("size \(recorded.size) → \(size)") }
        if recorded.lastModified != lastModified {
            result.append("Last-Modified \(recorded.lastModified ?? "none") → \(lastModified ?? "none")")
        }
        if let old = recorded.crc64, let new = crc64, old != new { result.append("CRC-64 \(old) → \(new)") }
        if recorded.versionId != versionId {
            result.append("version \(recorded.versionId ?? "none") → \(versionId ?? "none")")
        }
        return result
    }
}
