import NIOCore
import NIOHTTP1

import Foundation

/// CORS as OSS applies a bucket's rules: a preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`)
/// is answered 200 with `Access-Control-*` headers from the first rule that allows the origin, the method and every
/// requested header, or 403 `AccessForbidden`; any other request with an `Origin` gets the same headers (without
/// `Access-Control-Allow-Headers`) when a rule allows its origin and method.
extension RequestHandler {
    /// OptionObject: the preflight. Not signed (browsers never sign it), so it is not authenticated.
    func optionObject(_ context: RequestContext) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        guard let bytes = try await store.configuration(bucket, .cors) else {
            throw Self.corsForbidden("CORSResponse: CORS is not enabled for this bucket.")
        }
        guard let origin = context.header("origin"), let method = context.header("access-control-request-method") else {
            throw Self.corsForbidden(
                "CORSResponse: Insufficient information. Origin, request method or request headers are needed.")
        }
        let requested = Self.headerList(context.header("access-control-request-headers"))
        let cors = try CORSDocument.parse(bytes)
        guard let rule = cors.rules.first(where: { $0.allows(origin: origin, method: method, headers: requested) }) else {
            throw Self.corsForbidden(
                "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.")
        }
        var response = ServerResponse(status: .ok)
        Self.addCORSHeaders(rule, cors: cors, origin: origin, to: &response.headers)
        if let headers = context.header("access-control-request-headers"), !requested.isEmpty {
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Headers", value: headers)
        }
        return response
    }

    /// The response with `Access-Control-*` headers when the request has an `Origin` and a rule of its bucket
    /// allows that origin and the request's method; otherwise unchanged (the browser then refuses the answer).
    func withCORSHeaders(_ response: ServerResponse, context: RequestContext) async -> ServerResponse {
        guard let origin = context.header("origin"), let bucket = context.bucket,
            let cors = await storedConfiguration(CORSDocument.self, .cors, bucket: bucket)
        else { return response }
        var response = response
        if cors.responseVary == true { response.headers.replaceOrAdd(name: "Vary", value: "Origin") }
        guard let rule = cors.rules.first(where: { $0.allows(origin: origin, method: context.method, headers: []) }) else {
            return response
        }
        Self.addCORSHeaders(rule, cors: cors, origin: origin, to: &response.headers)
        return response
    }

    private static func addCORSHeaders(
        _ rule: CORSDocument.Rule, cors: CORSDocument, origin: String, to headers: inout HTTPHeaders
    ) {
        headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: rule.origins.contains("*") ? "*" : origin)
        headers.replaceOrAdd(name: "Access-Control-Allow-Methods", value: rule.methods.joined(separator: ", "))
        if !rule.exposed.isEmpty {
            headers.replaceOrAdd(name: "Access-Control-Expose-Headers", value: rule.exposed.joined(separator: ", "))
        }
        if let maxAge = rule.maxAge { headers.replaceOrAdd(name: "Access-Control-Max-Age", value: String(maxAge)) }
        if cors.responseVary == true { headers.replaceOrAdd(name: "Vary", value: "Origin") }
    }

    /// `a, b,c` → `["a", "b", "c"]`.
    static func headerList(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    private static func corsForbidden(_ message: String) -> LocalOSSError {
        LocalOSSError(403, "AccessForbidden", message)
    }
}

extension CORSDocument.Rule {
    /// Whether this rule lets `origin` send `method` with `headers` (origins compared exactly, header names
    /// without case; each pattern may hold one `*`).
    func allows(origin: String, method: String, headers: [String]) -> Bool {
        guard methods.contains(method), origins.contains(where: { Self.matches($0, origin) }) else { return false }
        let allowed = self.headers.map { $0.lowercased() }
        return headers.allSatisfy { header in allowed.contains { Self.matches($0, header.lowercased()) } }
    }

    /// `pattern` with at most one `*` standing for any run of characters.
    static func matches(_ pattern: String, _ text: String) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return pattern == text }
        let head = pattern[..<star]
        let tail = pattern[pattern.index(after: star)...]
        return text.count >= head.count + tail.count && text.hasPrefix(head) && text.hasSuffix(tail)
    }
}
