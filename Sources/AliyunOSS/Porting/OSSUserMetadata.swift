/// User metadata names: given as `name` or, the iOS way, as `x-oss-meta-name` (any case); both are sent as one
/// `x-oss-meta-name` header, never as `x-oss-meta-x-oss-meta-name`.
enum OSSUserMetadata {
    static let prefix = "x-oss-meta-"

    /// The header for a metadata entry.
    static func headerName(for name: String) -> String {
        let lower = name.lowercased()
        return lower.hasPrefix(prefix) ? lower : prefix + lower
    }

    /// Adds `metadata` to `operation` as `x-oss-meta-*` headers.
    static func apply(_ metadata: [String: String], to operation: inout OSSOperation) {
        for (name, value) in metadata {
            operation.setHeader(headerName(for: name), value)
        }
    }
}
