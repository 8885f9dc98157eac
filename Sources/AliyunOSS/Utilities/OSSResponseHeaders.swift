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

/// Compares a locally computed CRC-64 with the server's, when both are known and checking is enabled.
func verifyCRC64(local: UInt64, server: UInt64?, enabled: Bool, what: String) throws {
    guard enabled, let server else { return }
    guard local == server else {
        throw OSSClientError(
            .invalidCRC, "CRC-64 mismatch for \(what): computed \(local), server reported \(server)")
    }
}

extension OSSXMLNode {
    /// The text of `name`, percent-decoded when `urlEncoded` (the response used `encoding-type=url`).
    func decodedText(_ name: String, urlEncoded: Bool) throws -> String? {
        guard let raw = string(name) else { return nil }
        return try Self.decodeIfNeeded(raw, urlEncoded: urlEncoded, element: name)
    }

    static func decodeIfNeeded(_ raw: String, urlEncoded: Bool, element: String) throws -> String {
        guard urlEncoded else { return raw }
        guard let decoded = OSSPercentEncoding.decode(raw) else {
            throw OSSClientError(.exceptionCaught, "<\(element)> is not valid percent-encoding: \(raw.prefix(64))")
        }
        return decoded
    }

    /// A typed read that maps ``OSSXMLError`` to ``OSSClientError``.
    func decoded<T>(_ read: (OSSXMLNode) throws -> T) throws -> T {
        do {
            return try read(self)
        } catch let error as OSSClientError {
            throw error
        } catch {
            throw OSSClientError(.exceptionCaught, "unexpected \(name) response: \(error)", underlying: error)
        }
    }

    /// An ISO 8601 date element (`2024-01-15T08:30:45.000Z`).
    func date(_ name: String) -> Date? {
        string(name).flatMap { OSSDateFormat.parseISO8601($0) }
    }
}
