import Foundation

/// Decodes `Decodable` models from OSS XML documents, read with ``OSSXMLParser`` (so every limit of the parser
/// holds: size, depth, no DTDs or entities).
///
/// The mapping:
/// - a property is the child element named by its `CodingKey` with the first letter upper-cased (OSS names every
///   element in UpperCamelCase, so `partNumber` is `<PartNumber>` and only names such as `<ID>` need `CodingKeys`);
///   the first such element, when there are several;
/// - an array property is every child element of that name, in document order (flat repeated elements such as
///   `<Part>`); a missing array is empty. A wrapper element (`<TagSet><Tag>…</Tag></TagSet>`) is a nested model
///   with one array property, or a nested container in a hand-written `init(from:)`;
/// - an optional property is `nil` when its element is absent (an empty element is an empty string);
/// - `Bool` reads `true`/`false` (any case), integers and floating point read their text (surrounding white
///   space ignored), `Date` reads OSS's ISO 8601 (`2024-01-15T08:30:45.000Z`, fractional seconds optional),
///   `RawRepresentable` enums read their raw value;
/// - elements the model does not name are ignored (OSS adds fields over time).
///
/// A missing required element is ``OSSXMLError/Code/missingElement``, text of the wrong form
/// ``OSSXMLError/Code/invalidValue``; both carry the element path (`Tagging/TagSet/Tag[1]/Key`).
package struct OSSXMLDecoder: Sendable {
    package init() {}

    /// Parses `data` and decodes `T` from it; the root element must be `root`.
    package func decode<T: Decodable>(
        _ type: T.Type, from data: some Collection<UInt8>, root: String
    ) throws(OSSXMLError) -> T {
        try decode(type, from: OSSXMLParser.parse(data, root: root))
    }

    /// Decodes `T` from an element already parsed: its children are `T`'s properties.
    package func decode<T: Decodable>(_ type: T.Type, from element: OSSXMLNode) throws(OSSXMLError) -> T {
        do {
            return try T(from: ElementDecoder(.element(element), path: [], rootName: element.name))
        } catch let error as OSSXMLError {
            throw error
        } catch let error as DecodingError {
            // Thrown by a model's own `init(from:)` (or the synthesized one of a raw-value enum).
            throw OSSXMLError(decodingError: error, rootName: element.name)
        } catch {
            throw OSSXMLError(.invalidValue, "\(element.name): \(error)")
        }
    }
}

/// What a decoder stands on: one element, or every element of one name (an array's items).
private enum Position {
    case element(OSSXMLNode)
    case repeated([OSSXMLNode], name: String)
}

/// The element a coding key names: its string with the first letter upper-cased (`tagSet` → `TagSet`, `ID` stays).
func elementName(_ key: some CodingKey) -> String {
    let name = key.stringValue
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first) else { return name }
    return name.prefix(1).uppercased() + name.dropFirst()
}

/// The key of an array item in a coding path (encoder and decoder).
struct ItemKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// Arrays decode from repeated elements; the decoder asks at run time whether a type is one.
private protocol RepeatedElements {}
extension Array: RepeatedElements {}

extension OSSXMLError {
    /// `Root/Child/Item[2]/Leaf` for a coding path (items counted from 1, as XPath does).
    static func path(_ rootName: String, _ codingPath: [any CodingKey]) -> String {
        var text = rootName
        for key in codingPath {
            if let index = key.intValue, key is ItemKey {
                text += "[\(index + 1)]"
            } else {
                text += "/" + elementName(key)
            }
        }
        return text
    }

    init(decodingError: DecodingError, rootName: String) {
        switch decodingError {
        case .keyNotFound(let key, let context):
            let path = Self.path(rootName, context.codingPath + [key])
            self.init(.missingElement, "\(path) is missing", path: path)
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            let path = Self.path(rootName, context.codingPath)
            self.init(.invalidValue, "\(path): \(context.debugDescription)", path: path)
        @unknown default:
            self.init(.invalidValue, "\(rootName): \(decodingError)")
        }
    }
}

private struct ElementDecoder: Decoder {
    let position: Position
    let codingPath: [any CodingKey]
    let rootName: String
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ position: Position, path: [any CodingKey], rootName: String) {
        self.position = position
        self.codingPath = path
        self.rootName = rootName
    }

    func element() throws -> OSSXMLNode {
        switch position {
        case .element(let node): return node
        case .repeated(let nodes, let name):
            // A single value asked of an array property's elements: only meaningful for exactly one.
            guard nodes.count == 1 else {
                throw invalid("expected one <\(name)>, found \(nodes.count)")
            }
            return nodes[0]
        }
    }

    func invalid(_ message: String) -> OSSXMLError {
        let path = OSSXMLError.path(rootName, codingPath)
        return OSSXMLError(.invalidValue, "\(path): \(message)", path: path)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedElements<Key>(decoder: self, node: try element()))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch position {
        case .repeated(let nodes, _): return RepeatedItems(decoder: self, nodes: nodes)
        case .element(let node): return RepeatedItems(decoder: self, nodes: node.children)
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { ElementValue(decoder: self) }

    /// Decodes `T` from `position`, reached along `path`.
    func decodeValue<T: Decodable>(_ type: T.Type, _ position: Position, path: [any CodingKey]) throws -> T {
        let decoder = ElementDecoder(position, path: path, rootName: rootName)
        if T.self == Date.self {
            return try decoder.scalar { OSSXMLDateFormat.parse($0) } as! T
        }
        return try T(from: decoder)
    }

    /// The element's text as a scalar; white space around it is ignored for everything but strings.
    func scalar<T>(_ parse: (String) -> T?) throws -> T {
        let text = try element().text
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let value = parse(trimmed) else {
            throw invalid("not a valid \(T.self): \(trimmed.prefix(64))")
        }
        return value
    }
}

private struct KeyedElements<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ElementDecoder
    let node: OSSXMLNode
    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var seen = Set<String>()
        return node.children.compactMap { child in
            guard seen.insert(child.name).inserted else { return nil }
            // The key whose element name this is: the name itself, or with its first letter lower-cased.
            if let key = Key(stringValue: child.name) { return key }
            return Key(stringValue: child.name.prefix(1).lowercased() + child.name.dropFirst())
        }
    }

    func contains(_ key: Key) -> Bool { node.child(elementName(key)) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { !contains(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let path = codingPath + [key]
        if T.self is any RepeatedElements.Type {
            return try decoder.decodeValue(type, .repeated(node.children(elementName(key)), name: elementName(key)), path: path)
        }
        guard let child = node.child(elementName(key)) else {
            let text = OSSXMLError.path(decoder.rootName, path)
            throw OSSXMLError(.missingElement, "\(text) is missing", path: text)
        }
        return try decoder.decodeValue(type, .element(child), path: path)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        return try decode(type, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        guard let child = node.child(elementName(key)) else {
            let text = OSSXMLError.path(decoder.rootName, codingPath + [key])
            throw OSSXMLError(.missingElement, "\(text) is missing", path: text)
        }
        let nested = ElementDecoder(.element(child), path: codingPath + [key], rootName: decoder.rootName)
        return KeyedDecodingContainer(KeyedElements<NestedKey>(decoder: nested, node: child))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = ElementDecoder(
            .repeated(node.children(elementName(key)), name: elementName(key)), path: codingPath + [key],
            rootName: decoder.rootName)
        return RepeatedItems(decoder: nested, nodes: node.children(elementName(key)))
    }

    func superDecoder() throws -> any Decoder { decoder }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ElementDecoder(.element(node.child(elementName(key)) ?? OSSXMLNode(name: elementName(key))),
            path: codingPath + [key], rootName: decoder.rootName)
    }
}

private struct RepeatedItems: UnkeyedDecodingContainer {
    let decoder: ElementDecoder
    let nodes: [OSSXMLNode]
    var currentIndex = 0
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { nodes.count }
    var isAtEnd: Bool { currentIndex >= nodes.count }

    init(decoder: ElementDecoder, nodes: [OSSXMLNode]) {
        self.decoder = decoder
        self.nodes = nodes
    }

    mutating func next() throws -> (OSSXMLNode, [any CodingKey]) {
        guard !isAtEnd else {
            throw decoder.invalid("no item \(currentIndex + 1): only \(nodes.count)")
        }
        defer { currentIndex += 1 }
        return (nodes[currentIndex], codingPath + [ItemKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (node, path) = try next()
        return try decoder.decodeValue(type, .element(node), path: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, path) = try next()
        let nested = ElementDecoder(.element(node), path: path, rootName: decoder.rootName)
        return KeyedDecodingContainer(KeyedElements<NestedKey>(decoder: nested, node: node))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, path) = try next()
        return RepeatedItems(decoder: ElementDecoder(.element(node), path: path, rootName: decoder.rootName), nodes: node.children)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, path) = try next()
        return ElementDecoder(.element(node), path: path, rootName: decoder.rootName)
    }
}

private struct ElementValue: SingleValueDecodingContainer {
    let decoder: ElementDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool {
        try decoder.scalar { text in
            switch text.lowercased() {
            case "true": true
            case "false": false
            default: nil
            }
        }
    }
    func decode(_ type: String.Type) throws -> String { try decoder.element().text }
    func decode(_ type: Double.Type) throws -> Double { try decoder.scalar { Double($0).flatMap { $0.isFinite ? $0 : nil } } }
    func decode(_ type: Float.Type) throws -> Float { try decoder.scalar { Float($0).flatMap { $0.isFinite ? $0 : nil } } }
    func decode(_ type: Int.Type) throws -> Int { try decoder.scalar { Int($0) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.scalar { Int8($0) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.scalar { Int16($0) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.scalar { Int32($0) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.scalar { Int64($0) } }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.scalar { UInt($0) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.scalar { UInt8($0) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.scalar { UInt16($0) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.scalar { UInt32($0) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.scalar { UInt64($0) } }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type, decoder.position, path: codingPath)
    }
}

/// OSS's ISO 8601 form: `2024-01-15T08:30:45.000Z` (written with milliseconds; read with or without fractional
/// seconds, or with a numeric offset).
package enum OSSXMLDateFormat {
    private static let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let whole = Date.ISO8601FormatStyle()

    package static func format(_ date: Date) -> String { fractional.format(date) }

    package static func parse(_ text: String) -> Date? {
        // Both styles accept the other form on some Foundation versions; trying both covers all of them.
        guard text.utf8.count <= 64 else { return nil }
        return (try? fractional.parse(text)) ?? (try? whole.parse(text))
    }
}
