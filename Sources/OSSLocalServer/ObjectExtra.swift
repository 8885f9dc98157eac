import NIOHTTP1
import OSSSigning

import Foundation

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
    /// The priority a ColdArchive or DeepColdArchive restore runs at (`Expedited`, `Standard`, `Bulk`).
    var restoreTier: String?
    /// Server-side encryption as written (`x-oss-server-side-encryption`: `AES256`, `KMS` or `SM4`). Recorded and
    /// reported as OSS reports it; the local server keeps the bytes as they came.
    var encryption: String?
    /// For `KMS`: the KMS key id (`x-oss-server-side-encryption-key-id`, the server's default when none was named).
    var encryptionKeyId: String?
    /// For `KMS`: the algorithm of the data (`x-oss-server-side-data-encryption`: `SM4`); `nil` is AES-256.
    var dataEncryption: String?
    /// Unix seconds of the first SealAppendObject: a sealed appendable object takes no more appends.
    var sealedAt: Double?
    /// ObjectWorm: the version's retention (PutObjectRetention or the bucket's default) and legal hold.
    var retention: ObjectRetention?
    var legalHold: Bool?

    var isEmpty: Bool { self == ObjectExtra() }

    /// Whether reading needs a restore first (Archive, ColdArchive, DeepColdArchive).
    var needsRestore: Bool {
        guard let storageClass else { return false }
        return storageClass.hasSuffix("Archive")
    }

    /// The restore state as OSS reports it in the `x-oss-restore` header and in listings' `RestoreInfo`:
    /// `ongoing-request="true"` while a restore runs, `ongoing-request="false", expiry-date="<RFC 1123>"` while the
    /// restored copy is readable, `nil` otherwise (never restored, or the restored copy has expired).
    func restoreStatus(now: Double) -> String? {
        guard let ready = restoreReadyAt else { return nil }
        if now < ready { return "ongoing-request=\"true\"" }
        guard let expires = restoreExpiresAt, now < expires else { return nil }
        let date = OSSDateFormat.rfc1123(Date(timeIntervalSince1970: expires))
        return "ongoing-request=\"false\", expiry-date=\"\(date)\""
    }

    /// The server-side encryption headers OSS returns for an object (or an upload) written with these settings.
    func addEncryptionHeaders(_ headers: inout HTTPHeaders) {
        guard let encryption else { return }
        headers.replaceOrAdd(name: "x-oss-server-side-encryption", value: encryption)
        if let encryptionKeyId { headers.replaceOrAdd(name: "x-oss-server-side-encryption-key-id", value: encryptionKeyId) }
        if let dataEncryption { headers.replaceOrAdd(name: "x-oss-server-side-data-encryption", value: dataEncryption) }
    }

    /// The stored class name, `Standard` when unset.
    var storageClassName: String { storageClass ?? "Standard" }
}
