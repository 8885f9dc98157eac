/// An `oss://bucket[/key]` address given on the command line. How commands read it (a folder, a destination
/// folder) is ``PathRule``'s, in one place.
struct OSSURI: Sendable, Hashable, CustomStringConvertible {
    var bucket: String
    var key: String

    init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// Parses `oss://bucket`, `oss://bucket/`, `oss://bucket/prefix/key`. Returns `nil` for anything else.
    init?(_ text: String) {
        guard text.hasPrefix("oss://") else { return nil }
        let rest = text.dropFirst("oss://".count)
        let bucket = rest.prefix { $0 != "/" }
        guard !bucket.isEmpty else { return nil }
        self.bucket = String(bucket)
        self.key = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
    }

    static func isRemote(_ text: String) -> Bool { text.hasPrefix("oss://") }

    var description: String { key.isEmpty ? "oss://\(bucket)" : "oss://\(bucket)/\(key)" }
}
