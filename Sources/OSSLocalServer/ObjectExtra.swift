/// What an object carries besides its bytes and headers: ACL, storage class, tags, symlink target, restore state.
/// Persisted inside ``ObjectRecord`` (and ``UploadRecord`` for what was given at initiation); absent means the
/// defaults (ACL `default`, `Standard`, no tags, not a symlink, never restored).
struct ObjectExtra: Codable, Sendable, Equatable {
    struct Tag: Codable, Sendable, Equatable {
        var key: String
        var value: String
    }

    /// `private`, `public-read`, `public-read-write`; `nil` is `default` (the bucket's ACL applies).
    var acl: String?
    /// `IA`, `Archive`, `ColdArchive`, ...; `nil` is `Standard`.
    var storageClass: String?
    var tags: [Tag]?
    /// The key a symlink points to (same bucket).
    var symlinkTarget: String?
    /// Unix seconds at which a running restore completes.
    var restoreReadyAt: Double?
    /// Unix seconds until which a restored copy stays readable.
    var restoreExpiresAt: Double?

    var isEmpty: Bool { self == ObjectExtra() }

    /// Whether reading needs a restore first (Archive, ColdArchive, DeepColdArchive).
    var needsRestore: Bool {
        guard let storageClass else { return false }
        return storageClass.hasSuffix("Archive")
    }

    /// The stored class name, `Standard` when unset.
    var storageClassName: String { storageClass ?? "Standard" }
}
