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
public enum OSSXMLParser {
    /// The largest document accepted (a 1000-part ListParts page is about 250 KB).
    public static let maximumDocumentSize = 16 << 20
    /// The deepest nesting accepted.
    public static let maximumDepth = 64

    public static func parse(_ data: some Collection<UInt8>) throws(OSSXMLError) -> OSSXMLNode {
        guard data.count <= maximumDocumentSize else {
            throw OSSXMLError(.tooLarge, "document of \(data.count) bytes")
        }
        let bytes = Data(data)
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
    public static func parse(_ data: some Collection<UInt8>, root rootName: String) throws(OSSXMLError) -> OSSXMLNode {
        let root = try parse(data)
        guard root.name == rootName else {
            throw OSSXMLError(.unexpectedRoot, "expected <\(rootName)>, found <\(root.name)>")
        }
        return root
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
