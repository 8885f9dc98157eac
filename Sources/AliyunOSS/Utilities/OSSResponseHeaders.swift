#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSXML

/// Typed reads of the response headers OSS sends.
extension OSSHTTPResponse {
    /// `ETag`, as sent (quoted).
    var eTag: String? { headers["etag"] }

    /// `x-oss-hash-crc64ecma`, parsed; `nil` when absent or malformed.
    var crc64: UInt64? { headers["x-oss-hash-crc64ecma"].flatMap { CRC64.parseHeaderValue($0) } }

    /// `Content-Length`, parsed.
    var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) } }

    /// `Last-Modified`, parsed.
    var lastModified: Date? { headers["last-modified"].flatMap { OSSDateFormat.parseRFC1123($0) } }

    /// The `x-oss-meta-*` headers, keyed by the part after the prefix (lower-cased, as OSS returns it).
    var userMetadata: [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers where name.hasPrefix("x-oss-meta-") {
            result[String(name.dropFirst("x-oss-meta-".count))] = value
        }
        return result
    }

    /// Headers safe to hand to callers (no authentication material).
    var publicHeaders: [String: String] {
        headers.filter { !OSSServerError.sensitiveHeaders.contains($0.key) }
    }

    /// Collects and parses an XML body, checking its root element. Malformed XML is an ``OSSClientError``.
    func xml(root: String) async throws -> OSSXMLNode {
        let bytes = try await body.collectBytes(upTo: OSSXMLParser.maximumDocumentSize)
        do {
            return try OSSXMLParser.parse(bytes, root: root)
        } catch {
            throw OSSClientError(.exceptionCaught, "malformed \(root) response: \(error)", underlying: error)
        }
    }
}
