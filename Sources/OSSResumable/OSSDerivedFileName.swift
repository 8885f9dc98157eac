/// The path of a file named after another by adding to its name, `<directory>/<prefix><name><suffix>` (a
/// temporary file beside a destination, a copy's `.tmp`, a transfer's `.partial`), made to fit NAME_MAX: when that
/// name would be longer than 255 bytes of UTF-8 (Linux and macOS, where the original's own name may be up to 255
/// bytes), `<name>` is cut to its longest prefix that fits, at a character boundary.
///
/// The prefix and suffix are always kept whole, so whatever recognises derived files by them (sweepers, listing
/// filters, a test's `hasSuffix`) still does; and the result depends on the arguments only, so a later run that
/// derives the name again finds the same file.
package enum OSSDerivedFileName {
    /// NAME_MAX on Linux and macOS, in bytes of UTF-8.
    package static let maximumNameBytes = 255

    /// `original` with its last path component `<name>` replaced by `<prefix><name><suffix>`, `<name>` shortened
    /// as needed (the prefix and suffix are short: they must leave room for at least a character of the name).
    package static func path(_ original: String, prefix: String = "", suffix: String) -> String {
        let slash = original.utf8.lastIndex(of: UInt8(ascii: "/"))
        let nameStart = slash.map { original.utf8.index(after: $0) } ?? original.startIndex
        let name = fitted(original[nameStart...], room: maximumNameBytes - prefix.utf8.count - suffix.utf8.count)
        return String(original[..<nameStart]) + prefix + String(name) + suffix
    }

    /// `name`, or its longest prefix of whole characters that is at most `room` bytes of UTF-8.
    static func fitted(_ name: Substring, room: Int) -> Substring {
        guard name.utf8.count > room else { return name }
        var kept = 0
        var end = name.startIndex
        for character in name {
            guard kept + character.utf8.count <= room else { break }
            kept += character.utf8.count
            end = name.index(after: end)
        }
        return name[..<end]
    }
}
