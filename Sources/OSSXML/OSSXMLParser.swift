#if canImport(FoundationXML)
import FoundationXML
import Foundation
#else
import Foundation
#endif

/// Parses a document into an ``OSSXMLNode`` tree with Foundation's event parser (`XMLParser`).
///
/// Safe on hostile input: no external entities are resolved, a document type declaration or entity
/// declaration is refused outright, and size and depth are bounded.
package enum OSSXMLParser {
    /// The largest document accepted (a 1000-part ListParts page is about 250 KB).
    package static let maximumDocumentSize = 16 << 20
    /// The deepest nesting accepted.
    package static let maximumDepth = 64

    package static func parse(_ data: some Collection<UInt8>) throws(OSSXMLError) -> OSSXMLNode {
        guard data.count <= maximumDocumentSize else {
            throw OSSXMLError(.tooLarge, "document of \(data.count) bytes")
        }
        let bytes = Data(data)
        if let problem = preflightProblem(bytes) {
            throw OSSXMLError(.malformed, problem)
        }
        if containsDoctype(bytes) {
            throw OSSXMLError(.malformed, "document type declarations are not accepted")
        }
        let parser = XMLParser(data: bytes)
        parser.shouldResolveExternalEntities = false
        parser.shouldProcessNamespaces = false
        let delegate = TreeBuilder(maximumDepth: maximumDepth)
        parser.delegate = delegate
        let ok = parser.parse()
        if let error = delegate.failure { throw error }
        guard ok, let root = delegate.root else {
            let reason = parser.parserError.map { String(describing: $0) } ?? "no root element"
            throw OSSXMLError(.malformed, "line \(parser.lineNumber): \(reason)")
        }
        return root
    }

    /// Parses and checks that the root element is `rootName`.
    package static func parse(_ data: some Collection<UInt8>, root rootName: String) throws(OSSXMLError) -> OSSXMLNode {
        let root = try parse(data)
        guard root.name == rootName else {
            throw OSSXMLError(.unexpectedRoot, "expected <\(rootName)>, found <\(root.name)>")
        }
        return root
    }

    /// Why `data` must not reach `XMLParser`, or `nil` when it may.
    ///
    /// OSS only sends UTF-8 documents with no processing instructions besides the XML declaration. Anything
    /// else is refused before `XMLParser` sees it, because (found by the reliability fuzzer):
    /// - swift-corelibs-foundation's `XMLParser` dereferences NULL (SIGSEGV in `strlen`) on a processing
    ///   instruction without data, such as `<?pi?>` or `<?xml?>`;
    /// - documents that make libxml2 switch encodings mid-stream trapped it (SIGILL in
    ///   `_NSXMLParserStartElementNs`);
    /// - in UTF-16 or UTF-32 the `<!DOCTYPE` check below cannot see the declaration.
    static func preflightProblem(_ data: Data) -> String? {
        // NUL is never allowed in XML 1.0; it means UTF-16/32 or binary data.
        if data.contains(0) { return "only UTF-8 documents are accepted (found a NUL byte)" }
        // Valid UTF-8: decoding with repair changes nothing (this also refuses UTF-16 byte-order marks).
        guard String(decoding: data, as: UTF8.self).utf8.elementsEqual(data) else {
            return "only UTF-8 documents are accepted (the bytes are not valid UTF-8)"
        }
        var rest = data[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        if rest.starts(with: Array("<?xml".utf8)) {
            // The XML declaration: `<?xml` then white space, and it may only name UTF-8.
            let afterName = rest.dropFirst(5)
            guard let next = afterName.first, next == 0x20 || next == 0x09 || next == 0x0D || next == 0x0A,
                let end = afterName.firstRange(of: Array("?>".utf8))
            else { return "malformed XML declaration" }
            let declaration = String(decoding: afterName[..<end.lowerBound], as: UTF8.self)
            if let name = declaration.firstRange(of: "encoding") {
                let value = declaration[name.upperBound...].drop { " \t\r\n=".contains($0) }
                guard let quote = value.first, quote == "\"" || quote == "'" else { return "malformed XML declaration" }
                let encoding = value.dropFirst().prefix { $0 != quote }.lowercased()
                guard encoding == "utf-8" || encoding == "utf8" else {
                    return "only UTF-8 documents are accepted (the declaration says \(encoding.prefix(32)))"
                }
            }
            rest = afterName[end.upperBound...]
        }
        if rest.firstRange(of: Array("<?".utf8)) != nil {
            return "processing instructions are not accepted"
        }
        return nil
    }

    static func containsDoctype(_ data: Data) -> Bool {
        // "<!DOCTYPE" or "<!ENTITY" anywhere (case-insensitive); OSS never sends either.
        let needle1 = Array("<!DOCTYPE".utf8)
        let needle2 = Array("<!ENTITY".utf8)
        return data.withUnsafeBytes { raw -> Bool in
            let n = raw.count
            var i = 0
            while i + 1 < n {
                if raw[i] == 0x3C, raw[i + 1] == 0x21 {
                    for needle in [needle1, needle2] where i + needle.count <= n {
                        var match = true
                        for j in 2..<needle.count where raw[i + j] & 0xDF != needle[j] & 0xDF {
                            match = false
                            break
                        }
                        if match { return true }
                    }
                }
                i += 1
            }
            return false
        }
    }
}

private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [OSSXMLNode] = []
    var root: OSSXMLNode?
    var failure: OSSXMLError?
    let maximumDepth: Int

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName qName: String?,
        attributes attributeDict: [String: String] = [:]
    ) {
        if stack.count >= maximumDepth {
            failure = OSSXMLError(.tooLarge, "nesting deeper than \(maximumDepth)")
            parser.abortParsing()
            return
        }
        if root != nil && stack.isEmpty {
            failure = OSSXMLError(.malformed, "more than one root element")
            parser.abortParsing()
            return
        }
        stack.append(OSSXMLNode(name: elementName, attributes: attributeDict))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?
    ) {
        guard let node = stack.popLast() else { return }
        if stack.isEmpty {
            root = node
        } else {
            stack[stack.count - 1].children.append(node)
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        failure = OSSXMLError(.malformed, "entity declarations are not accepted")
        parser.abortParsing()
    }

    func parser(
        _ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?
    ) {
        failure = OSSXMLError(.malformed, "entity declarations are not accepted")
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        if failure == nil {
            failure = OSSXMLError(.malformed, "line \(parser.lineNumber): \(parseError)")
        }
    }
}
