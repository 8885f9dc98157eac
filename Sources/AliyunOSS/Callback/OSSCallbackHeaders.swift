#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The callback headers of every operation that takes one (put, complete, resumable upload, presign): the typed
/// ``OSSCallback``, else the iOS dictionaries `callbackParam` / `callbackVar`, which the SDK encodes itself
/// (Base64 of their JSON), as the iOS SDK does. One place, so the operations cannot differ.
enum OSSCallbackHeaders {
    /// `x-oss-callback` and `x-oss-callback-var`; empty without a callback. A typed callback wins over the
    /// dictionaries.
    ///
    /// - Throws: ``OSSClientError`` `.invalidArgument` for a typed callback ``OSSCallback/headers()`` refuses, or
    ///   variables without `callbackParam`.
    static func make(typed: OSSCallback?, parameters: [String: String]?, variables: [String: String]?) throws
        -> [String: String]
    {
        if let typed { return try typed.headers() }
        var headers: [String: String] = [:]
        headers["x-oss-callback"] = try base64JSON(parameters)
        headers["x-oss-callback-var"] = try base64JSON(variables)
        if headers["x-oss-callback"] == nil, headers["x-oss-callback-var"] != nil {
            throw OSSClientError.invalidArgument("callbackVar needs callbackParam (callbackUrl, callbackBody)")
        }
        return headers
    }

    /// The Base64 of `dictionary`'s JSON; `nil` for nil or empty.
    static func base64JSON(_ dictionary: [String: String]?) throws -> String? {
        guard let dictionary, !dictionary.isEmpty else { return nil }
        return try base64JSON(encoding: dictionary)
    }

    /// The Base64 of `value`'s JSON (keys sorted, slashes unescaped), as OSS takes callback headers.
    static func base64JSON(encoding value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value).base64EncodedString()
        } catch {
            throw OSSClientError(.invalidArgument, "the callback cannot be encoded", underlying: error)
        }
    }
}
