/// Builds an XML document as a string, escaping text. Elements are written in the order they are added.
package struct OSSXMLWriter: Sendable {
    package private(set) var output: String

    /// Starts a document, with the `<?xml ...?>` declaration unless `declaration` is false.
    package init(declaration: Bool = true) {
        output = declaration ? "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" : ""
    }

    package mutating func open(_ name: String) {
        output += "<\(name)>"
    }

    package mutating func close(_ name: String) {
        output += "</\(name)>"
    }

    /// `<name>escaped text</name>`.
    package mutating func element(_ name: String, _ text: String) {
        output += "<\(name)>"
        output += Self.escape(text)
        output += "</\(name)>"
    }

    /// `<name>text</name>` when `text` is not nil.
    package mutating func element(_ name: String, ifPresent text: String?) {
        if let text { element(name, text) }
    }

    /// `<name>…</name>` with the content written by `body`.
    package mutating func element(_ name: String, _ body: (inout OSSXMLWriter) -> Void) {
        open(name)
        body(&self)
        close(name)
    }

    /// Escapes `& < > " '` and drops characters XML 1.0 cannot carry.
    package static func escape(_ text: String) -> String {
        var needs = false
        for u in text.unicodeScalars {
            switch u {
            case "&", "<", ">", "\"", "'": needs = true
            default:
                if !isAllowed(u) { needs = true }
            }
            if needs { break }
        }
        if !needs { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        for u in text.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default:
                if isAllowed(u) { out.unicodeScalars.append(u) }
            }
        }
        return out
    }

    static func isAllowed(_ u: Unicode.Scalar) -> Bool {
        switch u.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }
}
