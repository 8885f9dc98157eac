#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSSigning

extension OSSServerError {
    /// How long the server asked the client to wait before trying again: `x-oss-qos-delay-time` (milliseconds,
    /// OSS) or else `Retry-After` (seconds, or an HTTP date). `nil` when the answer names no delay.
    var serverRetryDelay: Duration? {
        if let text = headers["x-oss-qos-delay-time"].map(Self.trimmed),
            let milliseconds = Int64(text), milliseconds >= 0
        {
            return .milliseconds(milliseconds)
        }
        if let text = headers["retry-after"].map(Self.trimmed) {
            if let seconds = Int64(text), seconds >= 0 { return .seconds(seconds) }
            if let date = OSSDateFormat.parseRFC1123(text) {
                return .milliseconds(Int64(max(0, date.timeIntervalSinceNow) * 1000))
            }
        }
        return nil
    }

    private static func trimmed(_ text: String) -> String {
        String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// Whether the server throttled the request (so every request of the client should slow down, not only this
    /// one): 429, or a 503 with a throttling code (``throttlingCodes``, beside the other codes in `Errors/`) or a delay
    /// to wait.
    var isThrottling: Bool {
        guard statusCode == 503 || statusCode == 429 else { return false }
        return statusCode == 429 || Self.throttlingCodes.contains(code) || serverRetryDelay != nil
    }
}
