#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSXML

/// An error answered by OSS (a non-2xx response), with every field of its `<Error>` document.
///
/// For HEAD requests, which carry no body, the document is decoded from the Base64 `x-oss-err` header.
public struct OSSServerError: Error, Sendable, CustomStringConvertible {
    /// The largest raw body kept, in bytes.
    public static let maximumRawBodySize = 64 * 1024

    /// The HTTP status, e.g. 404.
    public var statusCode: Int
    /// `<Code>`, e.g. `NoSuchKey`; empty when the response had no error document (e.g. 304).
    public var code: String
    /// `<Message>`.
    public var message: String
    /// `<RequestId>`, or the `x-oss-request-id` header.
    public var requestId: String
    /// `<HostId>`.
    public var hostId: String
    /// `<EC>` or the `x-oss-ec` header.
    public var ec: String
    /// Every child of `<Error>` by name (including the ones above and extras such as `Key` or `ServerTime`).
    public var fields: [String: String]
    /// The response headers, lower-cased names; authentication headers are never included.
    public var headers: [String: String]
    /// The raw error body, at most ``maximumRawBodySize`` bytes.
    public var rawBody: [UInt8]

    public init(
        statusCode: Int, code: String, message: String, requestId: String = "", hostId: String = "", ec: String = "",
        fields: [String: String] = [:], headers: [String: String] = [:], rawBody: [UInt8] = []
    ) {
        self.statusCode = statusCode
        self.code = code
        self.message = message
        self.requestId = requestId
        self.hostId = hostId
        self.ec = ec
        self.fields = fields
        self.headers = headers.filter { !Self.sensitiveHeaders.contains($0.key.lowercased()) }
        self.rawBody = Array(rawBody.prefix(Self.maximumRawBodySize))
    }

    static let sensitiveHeaders: Set<String> = ["authorization", "x-oss-security-token", "security-token", "set-cookie"]

    public var description: String {
        var s = "OSSServerError(status: \(statusCode), code: \(code.isEmpty ? "<none>" : code)"
        if !message.isEmpty { s += ", message: \(message)" }
        if !requestId.isEmpty { s += ", requestId: \(requestId)" }
        if !ec.isEmpty { s += ", ec: \(ec)" }
        return s + ")"
    }

    /// Builds the error from a response's status, headers and (bounded) body.
    /// Falls back to the `x-oss-err` header when the body is empty, and to the raw body when it is not XML.
    static func from(status: Int, headers: [String: String], body: [UInt8]) -> OSSServerError {
        var document = body
        if document.isEmpty, let encoded = headers["x-oss-err"], let decoded = Data(base64Encoded: encoded) {
            document = Array(decoded)
        }
        var fields: [String: String] = [:]
        if !document.isEmpty, let root = try? OSSXMLParser.parse(document), root.name == "Error" {
            for child in root.children where fields[child.name] == nil {
                fields[child.name] = child.text
            }
        }
        let requestId = fields["RequestId"] ?? headers["x-oss-request-id"] ?? ""
        let ec = fields["EC"] ?? headers["x-oss-ec"] ?? ""
        var message = fields["Message"] ?? ""
        if fields.isEmpty, !document.isEmpty {
            message = String(decoding: document.prefix(512), as: UTF8.self)
        }
        return OSSServerError(
            statusCode: status, code: fields["Code"] ?? "", message: message, requestId: requestId,
            hostId: fields["HostId"] ?? "", ec: ec, fields: fields, headers: headers, rawBody: document)
    }
}
