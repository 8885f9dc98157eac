import NIOHTTP1

import Foundation

/// A decoded request: addressing resolved, query and path percent-decoded, header names lower-cased.
struct RequestContext: Sendable {
    var head: HTTPRequestHead
    var method: String
    var bucket: String?
    var key: String?
    var query: [String: String]
    /// Lower-cased names; repeated headers joined with `,`.
    var headers: [String: String]
    var requestId: String
    /// The server clock for this request (shifted by a clock-skew fault).
    var now: Date
    var hostId: String
    /// Who the request acts as, once authorized (RequestHandler+Authorization.swift).
    var caller: Caller = .anonymous
    /// The client's IP address (a bucket policy's `acs:SourceIp`).
    var sourceIp: String?

    func header(_ name: String) -> String? { headers[name] }

    /// The request's `x-oss-meta-*` headers (names lower-cased).
    var userMetadata: [String: String] {
        var meta: [String: String] = [:]
        for (name, value) in headers where name.hasPrefix("x-oss-meta-") { meta[name] = value }
        return meta
    }

    var encodingTypeURL: Bool { query["encoding-type"]?.lowercased() == "url" }

    /// Whether the request carries a body (a non-zero Content-Length or chunked encoding).
    var hasBody: Bool {
        if let length = headers["content-length"], let n = Int64(length) { return n > 0 }
        return headers["transfer-encoding"] != nil
    }
}

/// 24 upper-case hex digits, like real OSS request ids.
enum RequestID {
    static func make() -> String {
        var g = SystemRandomNumberGenerator()
        let digits = Array("0123456789ABCDEF")
        return String((0..<24).map { _ in digits[Int(g.next() % 16)] })
    }

    /// 32 upper-case hex digits, time-ordered so uploads list in initiation order.
    static func uploadId() -> String {
        let micros = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        var g = SystemRandomNumberGenerator()
        let random = g.next()
        let a = String(micros, radix: 16, uppercase: true)
        let b = String(random, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - a.count) + a + String(repeating: "0", count: 16 - b.count) + b
    }
}
