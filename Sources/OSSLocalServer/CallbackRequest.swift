import OSSSigning

import Foundation

/// A decoded upload callback: the Base64 JSON of `x-oss-callback` and `x-oss-callback-var`, validated before the
/// upload is stored, so a malformed callback leaves no object behind (as OSS does).
struct CallbackRequest: Sendable {
    /// One callback target: a URL split into its parts.
    struct Target: Sendable, Equatable {
        var host: String
        var port: Int
        /// The path and query, at least `/`.
        var path: String
        /// Why the local server does not call this URL (it calls only `http` URLs on loopback addresses), or `nil`.
        /// OSS would call it; here the callback fails, as it does on OSS for a URL that cannot be reached: the
        /// object is stored and the reply is 203 `CallbackFailed`.
        var refusal: String?
    }

    /// The URLs tried in order until one answers (OSS allows up to 5, separated by `;`).
    var targets: [Target]
    /// The `Host` header sent (`callbackHost`), or the URL's host.
    var hostHeader: String?
    var bodyTemplate: String
    /// `application/x-www-form-urlencoded` (the default) or `application/json`.
    var bodyType: String
    /// `x:` variables from `x-oss-callback-var`.
    var variables: [String: String]

    static let urlEncodedType = "application/x-www-form-urlencoded"
    static let jsonType = "application/json"

    /// The callback of a request, or `nil` when it has none: the `x-oss-callback` header, or the `callback` query
    /// parameter of a presigned URL (with `callback-var` beside it), as OSS takes them.
    static func parse(_ context: RequestContext) throws(LocalOSSError) -> CallbackRequest? {
        guard let header = context.header("x-oss-callback") ?? context.query["callback"] else { return nil }
        let object = try decodeJSONObject(header, name: "x-oss-callback")
        guard let urlText = object["callbackUrl"] as? String, !urlText.isEmpty else {
            throw invalid("The callbackUrl of x-oss-callback is missing or empty.")
        }
        guard let body = object["callbackBody"] as? String, !body.isEmpty else {
            throw invalid("The callbackBody of x-oss-callback is missing or empty.")
        }
        let bodyType = (object["callbackBodyType"] as? String) ?? urlEncodedType
        guard bodyType == urlEncodedType || bodyType == jsonType else {
            throw invalid("The callbackBodyType must be \(urlEncodedType) or \(jsonType), not \(bodyType).")
        }
        let urls = urlText.split(separator: ";").map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !urls.isEmpty, urls.count <= 5 else { throw invalid("x-oss-callback takes 1 to 5 callback URLs.") }
        let targets = try urls.map { url throws(LocalOSSError) in try target(url) }
        var hostHeader: String?
        if let host = object["callbackHost"] {
            guard let text = host as? String else { throw invalid("The callbackHost of x-oss-callback must be a string.") }
            hostHeader = text.isEmpty ? nil : text
        }
        var variables: [String: String] = [:]
        if let varHeader = context.header("x-oss-callback-var") ?? context.query["callback-var"] {
            // Only `x:` names are custom variables; OSS ignores other names (oss2's test_sign_url_with_callback sends
            // a callback-var holding the callback's own fields and expects the upload to go through).
            for (name, value) in try decodeJSONObject(varHeader, name: "x-oss-callback-var") where name.hasPrefix("x:") {
                guard name.count > 2, name == name.lowercased() else {
                    throw invalid("The custom callback variable \(name) must be lower case and start with x:.")
                }
                guard let text = value as? String else { throw invalid("The callback variable \(name) must be a string.") }
                variables[name] = text
            }
        }
        let request = CallbackRequest(
            targets: targets, hostHeader: hostHeader, bodyTemplate: body, bodyType: bodyType, variables: variables)
        try request.checkJSONBody()
        return request
    }

    private static func decodeJSONObject(_ header: String, name: String) throws(LocalOSSError) -> [String: Any] {
        guard let data = Data(base64Encoded: header.trimmingWhitespace()) else {
            throw invalid("The \(name) header is not valid Base64.")
        }
        guard let parsed = try? JSONSerialization.jsonObject(with: data), let object = parsed as? [String: Any] else {
            throw invalid("The \(name) header is not a Base64-encoded JSON object.")
        }
        return object
    }

    /// Parses a callback URL (`http://` is the default scheme): a scheme other than http and https, a malformed host
    /// or port is InvalidArgument.
    static func target(_ text: String) throws(LocalOSSError) -> Target {
        var rest = Substring(text)
        var refusal: String?
        if let range = rest.range(of: "://") {
            let scheme = rest[..<range.lowerBound].lowercased()
            guard scheme == "http" || scheme == "https" else {
                throw invalid("A callback URL is http or https, not \(text).")
            }
            if scheme == "https" {
                refusal = "The local server calls back only http URLs, not \(text)."
            }
            rest = rest[range.upperBound...]
        }
        let authority: Substring
        var path = "/"
        if let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) {
            authority = rest[..<slash]
            path = rest[slash] == "/" ? String(rest[slash...]) : "/" + rest[slash...]
        } else {
            authority = rest
        }
        var host = String(authority)
        var port = 80
        var bracketed = false
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
            bracketed = true
            let portText = host[host.index(after: close)...]
            if portText.hasPrefix(":") {
                guard let p = Int(portText.dropFirst()), (1...65535).contains(p) else { throw invalid("Invalid port in callback URL \(text).") }
                port = p
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]), (1...65535).contains(p) else {
                throw invalid("Invalid port in callback URL \(text).")
            }
            port = p
            host = String(host[..<colon])
        }
        let allowed = bracketed ? "0123456789abcdefABCDEF:." : "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-."
        guard !host.isEmpty, host.allSatisfy({ allowed.contains($0) }) else {
            throw invalid("The host of the callback URL \(text) is not valid.")
        }
        if refusal == nil, !isLoopback(host) {
            refusal = "The local server calls back only loopback addresses (127.0.0.0/8, ::1, localhost), not \(host)."
        }
        return Target(host: host, port: port, path: path, refusal: refusal)
    }

    static func isLoopback(_ host: String) -> Bool {
        let lower = host.lowercased()
        if lower == "localhost" || lower == "::1" { return true }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    static func invalid(_ message: String) -> LocalOSSError {
        LocalOSSError(400, "InvalidArgument", message)
    }
}
