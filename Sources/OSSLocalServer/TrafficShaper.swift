import Foundation

/// Enforces `x-oss-traffic-limit` (a header, or a query parameter of a presigned URL) on response bodies and on
/// upload bodies by pacing them: a body of `n` bytes takes at least `n * 8 / limit` seconds. OSS accepts 819,200 (100 KB/s) to
/// 838,860,800 (100 MB/s) bits per second; other values are 400 `InvalidArgument`.
struct TrafficShaper: Sendable {
    static let name = "x-oss-traffic-limit"
    static let range = 819_200...838_860_800
    /// The chunk size while paced (small enough for an even rate at the lowest limit).
    static let chunkLength = 16 * 1024

    /// The request's limit in bits per second, `nil` without one.
    static func limit(of context: RequestContext) throws(LocalOSSError) -> Int? {
        guard let text = context.header(name) ?? context.query[name] else { return nil }
        guard let value = Int(text.trimmingWhitespace()), range.contains(value) else {
            throw LocalOSSError.invalidArgument(
                "The x-oss-traffic-limit must be between \(range.lowerBound) and \(range.upperBound) bit/s.",
                name: name, value: text)
        }
        return value
    }

    let bitsPerSecond: Int
    let start = ContinuousClock.now
    /// The bytes paced so far.
    private(set) var bytes: Int64 = 0
    /// How long sending ``bytes`` must take at the limit, in nanoseconds.
    private(set) var requiredNanoseconds: Int64 = 0

    init(bitsPerSecond: Int) {
        self.bitsPerSecond = bitsPerSecond
    }

    /// Waits until sending a total of `bytes` is within the limit.
    mutating func pace(toTotal bytes: Int64) async throws {
        let seconds = Double(bytes) * 8 / Double(bitsPerSecond)
        self.bytes = bytes
        requiredNanoseconds = Int64(seconds * 1_000_000_000)
        let due = start.advanced(by: .nanoseconds(requiredNanoseconds))
        guard due > ContinuousClock.now else { return }
        try await Task.sleep(until: due, clock: .continuous)
    }

    /// The time since the body started, in nanoseconds (at least ``requiredNanoseconds`` once paced).
    var elapsedNanoseconds: Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }
}
