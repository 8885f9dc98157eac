import Foundation

/// Encodes `Encodable` models as OSS XML documents, the mirror of ``OSSXMLDecoder``: a property is a child
/// element named by its `CodingKey` with the first letter upper-cased, in the order the model encodes them; an array is one element per item, all
/// with the property's name (a wrapper element is a nested model or container); `nil` optionals are left out;
/// `Bool` is `true`/`false`; `Date` is `2024-01-15T08:30:45.000Z`; raw-value enums write their raw value.
/// Text is escaped by ``OSSXMLWriter``.
package struct OSSXMLEncoder: Sendable {
    /// Whether the document starts with `<?xml version="1.0" encoding="UTF-8"?>`.
    package var declaration: Bool

    package init(declaration: Bool = true) {
        self.declaration = declaration
    }

    /// The document `<root>…</root>` for `value`.
    package func encode(_ value: some Encodable, root: String) throws(OSSXMLError) -> String {
        var writer = OSSXMLWriter(declaration: declaration)
        writer.write(try encodeElement(value, root: root))
        return writer.output
    }

    /// The element `<root>…</root>` for `value`, as a tree.
    package func encodeElement(_ value: some Encodable, root: String) throws(OSSXMLError) -> OSSXMLNode {
        guard Self.isName(root) else { throw OSSXMLError(.invalidValue, "<\(root)> is not an XML element name") }
        let box = ElementBox(root)
        do {
            try value.encode(to: ElementEncoder(box, path: [], rootName: root))
        } catch let error as OSSXMLError {
            throw error
        } catch {
            throw OSSXMLError(.invalidValue, "\(root): \(error)")
        }
        return box.node
    }

    /// An XML name as CodingKeys spell them: a letter or `_`, then letters, digits, `-`, `_` or `.`.
    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "."
        }
    }
}

extension OSSXMLWriter {
    /// Writes `node` and everything under it (attributes are not written: OSS request bodies have none).
    package mutating func write(_ node: OSSXMLNode) {
        if node.children.isEmpty {
            element(node.name, node.text)
        } else {
            open(node.name)
            for child in node.children { write(child) }
            close(node.name)
        }
    }
}

/// An element being built; containers share it, so it is a reference.
private final class ElementBox {
    let name: String
    var text = ""
    var children: [ElementBox] = []

    init(_ name: String) { self.name = name }

    func append(_ name: String) -> ElementBox {
        let child = ElementBox(name)
        children.append(child)
        return child
    }

    var node: OSSXMLNode { OSSXMLNode(name: name, children: children.map(\.node), text: text) }
}

/// Arrays encode as repeated elements; the encoder asks at run time whether a value is one.
private protocol RepeatedValues {}
extension Array: RepeatedValues {}

private struct ElementEncoder: Encoder {
    /// The element written into; for an array's items, the parent that receives one element per item.
    let box: ElementBox
    /// Set when encoding an array's items: the name each item's element gets.
    let itemName: String?
    let codingPath: [any CodingKey]
    let rootName: String
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ box: ElementBox, itemName: String? = nil, path: [any CodingKey], rootName: String) {
        self.box = box
        self.itemName = itemName
        self.codingPath = path
        self.rootName = rootName
    }

    func invalid(_ message: String, _ path: [any CodingKey]) -> OSSXMLError {
        let text = OSSXMLError.path(rootName, path)
        return OSSXMLError(.invalidValue, "\(text): \(message)", path: text)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(KeyedElementWriter<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        ItemWriter(encoder: self, name: itemName ?? "member")
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { ValueWriter(encoder: self) }

    /// Encodes `value` into a new child `name` of `box` (or, for an array, one child `name` per item).
    func encodeChild<T: Encodable>(_ value: T, name: String, path: [any CodingKey]) throws {
        guard OSSXMLEncoder.isName(name) else { throw invalid("<\(name)> is not an XML element name", path) }
        if value is any RepeatedValues {
            try value.encode(to: ElementEncoder(box, itemName: name, path: path, rootName: rootName))
            return
        }
        try Self.encode(value, into: box.append(name), path: path, rootName: rootName)
    }

    /// Encodes `value` as the content of `element`.
    static func encode<T: Encodable>(_ value: T, into element: ElementBox, path: [any CodingKey], rootName: String) throws {
        if let date = value as? Date {
            element.text = OSSXMLDateFormat.format(date)
            return
        }
        try value.encode(to: ElementEncoder(element, path: path, rootName: rootName))
    }
}

private struct KeyedElementWriter<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ElementEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    /// `nil` is no element at all.
    mutating func encodeNil(forKey key: Key) throws {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.encodeChild(value, name: elementName(key), path: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = encoder.box.append(elementName(key))
        return KeyedEncodingContainer(
            KeyedElementWriter<NestedKey>(
                encoder: ElementEncoder(child, path: codingPath + [key], rootName: encoder.rootName)))
    }

    /// Items appended as repeated `<key>` elements of this element (a wrapper is a nested container first).
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ItemWriter(
            encoder: ElementEncoder(encoder.box, path: codingPath + [key], rootName: encoder.rootName),
            name: elementName(key))
    }

    mutating func superEncoder() -> any Encoder { encoder }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        ElementEncoder(encoder.box.append(elementName(key)), path: codingPath + [key], rootName: encoder.rootName)
    }
}

/// An array's items: each one a new element `name` in the encoder's element.
private struct ItemWriter: UnkeyedEncodingContainer {
    let encoder: ElementEncoder
    let name: String
    private(set) var count = 0
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: ElementEncoder, name: String) {
        self.encoder = encoder
        self.name = name
    }

    mutating func nextPath() -> [any CodingKey] {
        defer { count += 1 }
        return codingPath + [ItemKey(count)]
    }

    mutating func encodeNil() throws {
        _ = nextPath()
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath()
        guard OSSXMLEncoder.isName(name) else { throw encoder.invalid("<\(name)> is not an XML element name", path) }
        try ElementEncoder.encode(value, into: encoder.box.append(name), path: path, rootName: encoder.rootName)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath()
        return KeyedEncodingContainer(
            KeyedElementWriter<NestedKey>(
                encoder: ElementEncoder(encoder.box.append(name), path: path, rootName: encoder.rootName)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath()
        return ItemWriter(
            encoder: ElementEncoder(encoder.box.append(name), path: path, rootName: encoder.rootName), name: "member")
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath()
        return ElementEncoder(encoder.box.append(name), path: path, rootName: encoder.rootName)
    }
}

/// The element's text.
private struct ValueWriter: SingleValueEncodingContainer {
    let encoder: ElementEncoder
    var codingPath: [any CodingKey] { encoder.codingPath }

    mutating func set(_ text: String) { encoder.box.text = text }

    mutating func encodeNil() throws {}
    mutating func encode(_ value: Bool) throws { set(value ? "true" : "false") }
    mutating func encode(_ value: String) throws { set(value) }
    mutating func encode(_ value: Double) throws {
        guard value.isFinite else { throw encoder.invalid("\(value) cannot be written", codingPath) }
        set(String(value))
    }
    mutating func encode(_ value: Float) throws {
        guard value.isFinite else { throw encoder.invalid("\(value) cannot be written", codingPath) }
        set(String(value))
    }
    mutating func encode(_ value: Int) throws { set(String(value)) }
    mutating func encode(_ value: Int8) throws { set(String(value)) }
    mutating func encode(_ value: Int16) throws { set(String(value)) }
    mutating func encode(_ value: Int32) throws { set(String(value)) }
    mutating func encode(_ value: Int64) throws { set(String(value)) }
    mutating func encode(_ value: UInt) throws { set(String(value)) }
    mutating func encode(_ value: UInt8) throws { set(String(value)) }
    mutating func encode(_ value: UInt16) throws { set(String(value)) }
    mutating func encode(_ value: UInt32) throws { set(String(value)) }
    mutating func encode(_ value: UInt64) throws { set(String(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        try ElementEncoder.encode(value, into: encoder.box, path: codingPath, rootName: encoder.rootName)
    }
}
