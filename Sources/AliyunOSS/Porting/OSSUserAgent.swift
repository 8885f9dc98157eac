/// The `User-Agent` sent with every request: the SDK's own, followed by the app's
/// ``OSSClientConfiguration/userAgent`` when one is set (appended, as in the iOS SDK, never replacing it).
enum OSSUserAgent {
    /// The SDK's part, e.g. `aliyun-oss-swift/0.1 (Linux; x86_64)`.
    static let sdk: String = {
        #if os(iOS)
        let os = "iOS"
        #elseif os(macOS)
        let os = "macOS"
        #elseif os(tvOS)
        let os = "tvOS"
        #elseif os(watchOS)
        let os = "watchOS"
        #elseif os(visionOS)
        let os = "visionOS"
        #elseif os(Linux)
        let os = "Linux"
        #else
        let os = "unknown"
        #endif
        #if arch(arm64)
        let arch = "arm64"
        #elseif arch(x86_64)
        let arch = "x86_64"
        #else
        let arch = "unknown"
        #endif
        return "aliyun-oss-swift/0.1 (\(os); \(arch))"
    }()

    /// The full header value for an app's addition (trimmed; `nil` or empty adds nothing).
    static func value(appending custom: String?) -> String {
        guard let custom = custom?.trimmingCharactersInWhitespace(), !custom.isEmpty else { return sdk }
        return sdk + " " + custom
    }
}
