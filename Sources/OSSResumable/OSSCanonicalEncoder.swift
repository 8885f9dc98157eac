/// A canonical byte encoding of `Encodable` values, for checksums that must not depend on how a platform's
/// `JSONEncoder` orders keys, escapes characters or formats numbers.
///
/// The bytes are JSON, written by this code alone:
/// - objects: members sorted by the UTF-8 bytes of their keys, as `"key":value` joined by `,`, no whitespace;
///   a key encoded twice keeps its last value; optional values that are `nil` are left out (as the synthesised
///   `Codable` conformances do with `encodeIfPresent`), an explicit `nil` is `null`;
/// - arrays: `[v,v,...]` in order;
/// - strings: `"` + their UTF-8 bytes, with `"` written `\"`, `\` written `\\`, and U+0000...U+001F written
///   `\u00xx` (lower-case hex); nothing else is escaped (`/` and non-ASCII characters are written as they are);
/// - integers: decimal, `-` for negatives, no leading zeros; `true` / `false`;
/// - floating-point numbers: Swift's shortest round-trip text (`description`), the same on every platform.
///
/// Two values that encode the same fields with the same values give the same bytes, whatever order the fields
/// were encoded in.
package enum OSSCanonicalEncoder {
    /// The canonical bytes of `value`.
    package static func encode<Value: Encodable>(_ value: Value) throws -> [UInt8] {
        let root = CanonicalNode()
        try value.encode(to: CanonicalEncoder(node: root, codingPath: []))
        var out: [UInt8] = []
        root.write(to: &out)
        return out
    }

    /// The lower-case hex SHA-256 of the canonical bytes of `value`.
    package static func sha256Hex<Value: Encodable>(_ value: Value) throws -> String {
        OSSRecordCodec.sha256Hex(try encode(value))
    }
}

/// One value under construction. A class, so that containers handed out by the encoder fill it in later; the
/// children live in plain arrays and dictionaries of the node (never copied out of an enum), so building a record
/// of n parts is O(n).
private final class CanonicalNode {
    enum Kind {
        case empty
        case scalar
        case object
        case array
    }

    var kind: Kind = .empty
    var scalar: [UInt8] = []
    var members: [String: CanonicalNode] = [:]
    var elements: [CanonicalNode] = []

    func setScalar(_ bytes: [UInt8]) {
        kind = .scalar
        scalar = bytes
    }

    func member(_ key: String) -> CanonicalNode {
        makeObject()
        let node = CanonicalNode()
        members[key] = node
        return node
    }

    func makeObject() {
        if kind != .object {
            kind = .object
            members = [:]
        }
    }

    func makeArray() {
        if kind != .array {
            kind = .array
            elements = []
        }
    }

    func appendElement() -> CanonicalNode {
        makeArray()
        let node = CanonicalNode()
        elements.append(node)
        return node
    }

    var count: Int {
        switch kind {
        case .array: elements.count
        case .object: members.count
        default: 0
        }
    }

    func write(to out: inout [UInt8]) {
        switch kind {
        case .empty:
            out += Array("{}".utf8)
        case .scalar:
            out += scalar
        case .object:
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.map { (key: $0, bytes: Array($0.utf8)) }
                .sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += Self.string(key.key)
                out.append(UInt8(ascii: ":"))
                members[key.key]?.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array:
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                element.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    static func writeString(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0x00...0x1F:
                out += Array("\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    static func string(_ string: String) -> [UInt8] {
        var out: [UInt8] = []
        writeString(string, to: &out)
        return out
    }
}

private struct CanonicalKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }
}

private struct CanonicalEncoder: Encoder {
    let node: CanonicalNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(CanonicalKeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return CanonicalUnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CanonicalSingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// Encodes one value into `node`: scalars directly, anything else through its own `encode(to:)`.
private func encodeValue<T: Encodable>(_ value: T, into node: CanonicalNode, codingPath: [any CodingKey]) throws {
    var single = CanonicalSingleValueContainer(node: node, codingPath: codingPath)
    try single.encode(value)
}

private struct CanonicalKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: CanonicalNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws {
        node.member(key.stringValue).setScalar(Array("null".utf8))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encodeValue(value, into: node.member(key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        let child = node.member(key.stringValue)
        child.makeObject()
        return KeyedEncodingContainer(CanonicalKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.makeArray()
        return CanonicalUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        CanonicalEncoder(node: node.member("super"), codingPath: codingPath + [CanonicalKey(stringValue: "super")])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        CanonicalEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct CanonicalUnkeyedContainer: UnkeyedEncodingContainer {
    let node: CanonicalNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws {
        node.appendElement().setScalar(Array("null".utf8))
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = CanonicalKey(intValue: count)
        try encodeValue(value, into: node.appendElement(), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let key = CanonicalKey(intValue: count)
        let child = node.appendElement()
        child.makeObject()
        return KeyedEncodingContainer(CanonicalKeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let key = CanonicalKey(intValue: count)
        let child = node.appendElement()
        child.makeArray()
        return CanonicalUnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        let key = CanonicalKey(intValue: count)
        return CanonicalEncoder(node: node.appendElement(), codingPath: codingPath + [key])
    }
}

private struct CanonicalSingleValueContainer: SingleValueEncodingContainer {
    let node: CanonicalNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.setScalar(Array("null".utf8)) }
    mutating func encode(_ value: Bool) throws { node.setScalar(Array((value ? "true" : "false").utf8)) }
    mutating func encode(_ value: String) throws { node.setScalar(CanonicalNode.string(value)) }
    mutating func encode(_ value: Double) throws { try encodeFloat(value.isFinite, value.description) }
    mutating func encode(_ value: Float) throws { try encodeFloat(value.isFinite, value.description) }
    mutating func encode(_ value: Int) throws { encodeInteger(value) }
    mutating func encode(_ value: Int8) throws { encodeInteger(value) }
    mutating func encode(_ value: Int16) throws { encodeInteger(value) }
    mutating func encode(_ value: Int32) throws { encodeInteger(value) }
    mutating func encode(_ value: Int64) throws { encodeInteger(value) }
    mutating func encode(_ value: UInt) throws { encodeInteger(value) }
    mutating func encode(_ value: UInt8) throws { encodeInteger(value) }
    mutating func encode(_ value: UInt16) throws { encodeInteger(value) }
    mutating func encode(_ value: UInt32) throws { encodeInteger(value) }
    mutating func encode(_ value: UInt64) throws { encodeInteger(value) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        switch value {
        case let value as String: try encode(value)
        case let value as Bool: try encode(value)
        case let value as Int: try encode(value)
        case let value as Int64: try encode(value)
        case let value as UInt64: try encode(value)
        case let value as Int32: try encode(value)
        case let value as UInt32: try encode(value)
        case let value as Double: try encode(value)
        default: try value.encode(to: CanonicalEncoder(node: node, codingPath: codingPath))
        }
    }

    private func encodeInteger<T: BinaryInteger>(_ value: T) {
        node.setScalar(Array(String(value).utf8))
    }

    private func encodeFloat(_ isFinite: Bool, _ text: String) throws {
        guard isFinite else {
            throw EncodingError.invalidValue(
                text, EncodingError.Context(codingPath: codingPath, debugDescription: "\(text) has no canonical form"))
        }
        node.setScalar(Array(text.utf8))
    }
}
