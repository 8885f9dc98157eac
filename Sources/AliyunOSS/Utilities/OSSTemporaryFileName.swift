import OSSResumable

/// The name of a download's temporary file beside its destination: `<destination>.osstmp-<hex id>`, or, when that
/// file name would be longer than NAME_MAX (255 bytes on Linux and macOS, where a destination's own name may be up
/// to 255 bytes), the destination's file name cut to fit at a character boundary, then the same `.osstmp-<hex id>`
/// (``OSSDerivedFileName``, which the other files named after a user's file share).
///
/// Both forms end in `.osstmp-<hex id>`, which is how the record sweeper (``OSSRecordSweeper``) and sync's local
/// listing (``OSSBatchPlanner``) recognise temporary files; ``isTemporary(_:of:)`` recognises those of one
/// destination. The name is a function of the destination and the id only, so a record-backed download's
/// deterministic temporary file keeps its name across runs.
enum OSSTemporaryFileName {
    static let marker = ".osstmp-"

    /// The temporary file of `destination` with the id `id` (hex digits).
    static func path(beside destination: String, id: String) -> String {
        OSSDerivedFileName.path(destination, suffix: marker + id)
    }

    /// A temporary file of `destination` with a random id, for a download that no record names.
    static func randomPath(beside destination: String) -> String {
        path(beside: destination, id: String(UInt64.random(in: 0...UInt64.max), radix: 16))
    }

    /// The id of bytes (a digest's), as lowercase hex.
    static func hexID(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Whether `path` is a temporary file of `destination` with some hex id: `<destination>.osstmp-<id>` (the name
    /// earlier versions always used) or the shortened name ``path(beside:id:)`` makes for a long file name.
    static func isTemporary(_ path: String, of destination: String) -> Bool {
        let id = String(String(path.reversed().prefix(while: \.isHexDigit)).reversed())
        guard !id.isEmpty else { return false }
        return path == destination + marker + id || path == Self.path(beside: destination, id: id)
    }
}
