#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

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
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.exceptionCaught, "unexpected \(name) response: \($0)", underlying: $0)
            }
        }
    }

    /// An ISO 8601 date element (`2024-01-15T08:30:45.000Z`).
    func date(_ name: String) -> Date? {
        string(name).flatMap { OSSDateFormat.parseISO8601($0) }
    }
}
