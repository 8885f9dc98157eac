/// An object key compared and hashed byte for byte (its UTF-8), as OSS compares keys.
///
/// Swift's `String` equality follows Unicode canonical equivalence, so `"é"` (U+00E9) and `"e\u{301}"` are equal
/// strings — but they are two different OSS objects.
struct ExactKey: Hashable, Sendable {
    let key: String

    init(_ key: String) {
        self.key = key
    }

    static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
        lhs.key.utf8.elementsEqual(rhs.key.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var key = key
        key.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
