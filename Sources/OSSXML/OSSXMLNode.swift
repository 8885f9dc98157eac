import Foundation

/// An XML element as parsed: name, attributes, child elements and the text directly inside it.
///
/// Text is kept exactly as received (every chunk concatenated, nothing trimmed), so keys with leading or
/// trailing spaces and entities survive. Documents are small (OSS responses), so a tree is fine.
package struct OSSXMLNode: Sendable, Hashable {
    package var name: String
    package var attributes: [String: String]
    package var children: [OSSXMLNode]
    /// The character data directly inside this element (not its descendants'), concatenated.
    package var text: String

    package init(name: String, attributes: [String: String] = [:], children: [OSSXMLNode] = [], text: String = "") {
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// The first child element called `name`.
    package func child(_ name: String) -> OSSXMLNode? {
        children.first { $0.name == name }
    }

    /// Every child element called `name`, in document order. A single element is a list of one.
    package func children(_ name: String) -> [OSSXMLNode] {
        children.filter { $0.name == name }
    }

    /// The text of the first child called `name`, or `nil` when there is none.
    package func string(_ name: String) -> String? {
        child(name)?.text
    }

    /// The text of the required child `name`.
    package func requiredString(_ name: String) throws(OSSXMLError) -> String {
        guard let value = child(name)?.text else {
            throw OSSXMLError(.missingElement, "<\(self.name)> has no <\(name)>")
        }
        return value
    }

    /// The child `name` as an integer; `nil` when absent, an error when present but not a number.
    package func int(_ name: String) throws(OSSXMLError) -> Int? {
        guard let text = child(name)?.text else { return nil }
        guard let value = Int(text) else {
            throw OSSXMLError(.invalidValue, "<\(name)> is not an integer: \(text.prefix(64))")
        }
        return value
    }

    /// The child `name` as an unsigned 64-bit integer (sizes, CRC64).
    package func uint64(_ name: String) throws(OSSXMLError) -> UInt64? {
        guard let text = child(name)?.text else { return nil }
        guard let value = UInt64(text) else {
            throw OSSXMLError(.invalidValue, "<\(name)> is not an unsigned integer: \(text.prefix(64))")
        }
        return value
    }

    /// The child `name` as `true`/`false` (OSS writes lower case; any case is accepted).
    package func bool(_ name: String) throws(OSSXMLError) -> Bool? {
        guard let text = child(name)?.text else { return nil }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw OSSXMLError(.invalidValue, "<\(name)> is not a boolean: \(text.prefix(64))")
        }
    }
}

/// A malformed or unexpected XML document.
package struct OSSXMLError: Error, Sendable, Hashable, CustomStringConvertible {
    package enum Code: String, Sendable, Hashable {
        /// Not well-formed XML (or a DTD/entity declaration, which is refused).
        case malformed
        /// The root element is not the one expected.
        case unexpectedRoot
        /// A required element is missing.
        case missingElement
        /// An element holds text of the wrong form (not a number, not a boolean, bad percent-encoding).
        case invalidValue
        /// The document is larger or deeper than any OSS response.
        case tooLarge
    }

    package var code: Code
    package var message: String
    /// Where in the document, for errors found while decoding a model: `Tagging/TagSet/Tag[2]/Key`.
    package var path: String?

    package init(_ code: Code, _ message: String, path: String? = nil) {
        self.code = code
        self.message = message
        self.path = path
    }

    package var description: String { "XML \(code.rawValue): \(message)" }
}

extension OSSXMLError: LocalizedError {
    /// The ``description``, so that `localizedDescription` says what happened.
    package var errorDescription: String? { description }
}
