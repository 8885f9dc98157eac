/// OSS's single-connection bandwidth limit, `x-oss-traffic-limit`, in bits per second: 819,200 (100 KB/s) to
/// 838,860,800 (100 MB/s). Set it as a header on uploads and downloads (``OSSResumableUploadRequest/trafficLimit``,
/// ``OSSResumableDownloadRequest/trafficLimit``, or `headers["x-oss-traffic-limit"]` on any request), or as a
/// presigned URL's parameter.
public enum OSSTrafficLimit {
    /// The allowed range, in bits per second.
    public static let range: ClosedRange<Int> = 819_200...838_860_800
    /// The header and query parameter name.
    public static let name = "x-oss-traffic-limit"

    /// The header for `bitsPerSecond` (none for nil).
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` outside ``range``.
    static func headers(_ bitsPerSecond: Int?) throws -> [String: String] {
        guard let bitsPerSecond else { return [:] }
        guard range.contains(bitsPerSecond) else {
            throw OSSClientError.invalidArgument(
                "the traffic limit must be \(range.lowerBound)...\(range.upperBound) bits/s, not \(bitsPerSecond)")
        }
        return [name: String(bitsPerSecond)]
    }

    /// `custom` with the traffic limit header added.
    static func merged(_ custom: [String: String], limit: Int?) throws -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in custom { headers[name.lowercased()] = value }
        for (name, value) in try Self.headers(limit) { headers[name] = value }
        return headers
    }
}
