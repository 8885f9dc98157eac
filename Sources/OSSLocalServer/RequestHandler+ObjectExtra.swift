import NIOHTTP1
import OSSSigning

import Foundation

/// What PutObject, InitiateMultipartUpload, CopyObject and AppendObject take besides bytes (ACL, storage class,
/// tags), and what GET/HEAD report about it (storage class, tag count, restore state; symlinks resolved).
extension RequestHandler {
    static let storageClasses: Set<String> = ["Standard", "IA", "Archive", "ColdArchive", "DeepColdArchive"]

    /// `x-oss-storage-class` checked, or `nil` when absent.
    func requestedStorageClass(_ context: RequestContext) throws(LocalOSSError) -> String? {
        guard let value = context.header("x-oss-storage-class") else { return nil }
        guard let known = Self.storageClasses.first(where: { $0.lowercased() == value.lowercased() }) else {
            throw .invalidArgument("Invalid storage class.", name: "x-oss-storage-class", value: value)
        }
        return known == "Standard" ? nil : known
    }

    /// The ACL, storage class and tags a write request asks for, or `nil` for none.
    func requestedExtra(_ context: RequestContext) throws(LocalOSSError) -> ObjectExtra? {
        var extra = ObjectExtra()
        extra.acl = try requestedObjectACL(context).flatMap { $0 == "default" ? nil : $0 }
        extra.storageClass = try requestedStorageClass(context)
        extra.tags = try requestedTags(context).flatMap { $0.isEmpty ? nil : $0 }
        try requestEncryption(context, into: &extra)
        return extra.isEmpty ? nil : extra
    }

    static let encryptionHeaders = [
        "x-oss-server-side-encryption", "x-oss-server-side-encryption-key-id", "x-oss-server-side-data-encryption",
    ]

    /// `x-oss-server-side-encryption` (`AES256`, `KMS`, `SM4`) with, for `KMS` only, the key id (the server's
    /// default KMS key when absent) and `x-oss-server-side-data-encryption: SM4`; as OSS, the two are ignored for the
    /// other algorithms and without `x-oss-server-side-encryption`.
    func requestEncryption(_ context: RequestContext, into extra: inout ObjectExtra) throws(LocalOSSError) {
        guard let algorithm = context.header("x-oss-server-side-encryption") else { return }
        guard ["AES256", "KMS", "SM4"].contains(algorithm) else {
            throw LocalOSSError(
                400, "InvalidEncryptionAlgorithmError",
                "The Encryption request you specified is not valid. Supported value: AES256/KMS/SM4",
                fields: [("ArgumentName", "x-oss-server-side-encryption"), ("ArgumentValue", algorithm)])
        }
        extra.encryption = algorithm
        guard algorithm == "KMS" else { return }
        let keyId = context.header("x-oss-server-side-encryption-key-id") ?? ""
        extra.encryptionKeyId = keyId.isEmpty ? configuration.kmsKeyId : keyId
        if let data = context.header("x-oss-server-side-data-encryption") {
            guard data == "SM4" else {
                throw .invalidArgument(
                    "The data encryption algorithm must be SM4.", name: "x-oss-server-side-data-encryption", value: data)
            }
            extra.dataEncryption = data
        }
    }

    /// UploadPart and CompleteMultipartUpload take the upload's encryption; naming one is an error, as in OSS.
    func rejectEncryptionHeaders(_ context: RequestContext) throws(LocalOSSError) {
        for name in Self.encryptionHeaders {
            if let value = context.header(name) {
                throw .invalidArgument(
                    "Server-side encryption is set when the multipart upload is initiated.", name: name, value: value)
            }
        }
    }

    /// What a GET or HEAD reads: an object, or for a symlink its target's bytes (`data`) with the symlink's own
    /// record (`link`), whose metadata the reply carries.
    struct ReadableObject {
        var data: ObjectRecord
        var link: ObjectRecord?
    }

    /// The object a GET/HEAD reads: a symlink resolves to its target (404 SymlinkTargetNotExist when dangling, 400
    /// InvalidTargetType when the target is a symlink too); an Archive object must be restored before GET (403
    /// InvalidObjectState).
    ///
    /// Reading through a symlink checks permission on the symlink and on its target, as OSS documents for PutSymlink
    /// (https://www.alibabacloud.com/help/en/oss/developer-reference/putsymlink): ``authorize(_:context:)`` has
    /// checked the symlink's ACL, so an anonymous caller also needs read access to the target (403 AccessDenied), and
    /// a public-read symlink does not publish a private target.
    func readableObject(_ bucket: String, _ key: String, context: RequestContext) async throws -> ReadableObject {
        let object = try await store.object(bucket, key, versionId: try requestedVersionId(context))
        var readable = ReadableObject(data: object, link: nil)
        if let target = object.extra?.symlinkTarget {
            guard let resolved = try? await store.object(bucket, target) else {
                throw LocalOSSError(
                    404, "SymlinkTargetNotExist", "The symlink target object does not exist",
                    fields: [("SymlinkTarget", target)])
            }
            guard resolved.extra?.symlinkTarget == nil else {
                throw LocalOSSError(
                    400, "InvalidTargetType", "The symlink target object is a symlink.",
                    fields: [("SymlinkTarget", target)])
            }
            try await requireObjectAccess("oss:GetObject", bucket, target, object: resolved, context: context)
            readable = ReadableObject(data: resolved, link: object)
        }
        if context.head.method != .HEAD { try requireRestored(readable.data, context: context) }
        return readable
    }

    /// Archive objects must be restored (and the restore finished, not expired) before their bytes are read.
    func requireRestored(_ object: ObjectRecord, context: RequestContext) throws(LocalOSSError) {
        guard let extra = object.extra, extra.needsRestore else { return }
        let now = context.now.timeIntervalSince1970
        if let ready = extra.restoreReadyAt, ready <= now, now < (extra.restoreExpiresAt ?? .infinity) { return }
        throw LocalOSSError(403, "InvalidObjectState", "The operation is not valid for the object's state")
    }

    /// Adds storage class and restore state (of the object holding the bytes, `data`) and tag count (of the object
    /// asked for, `owner`: a symlink's own tags) to GET/HEAD headers.
    func addExtraHeaders(_ headers: inout HTTPHeaders, data: ObjectRecord, owner: ObjectRecord, context: RequestContext) {
        let extra = data.extra ?? ObjectExtra()
        headers.replaceOrAdd(name: "x-oss-storage-class", value: extra.storageClassName)
        if let count = owner.extra?.tags?.count, count > 0 {
            headers.add(name: "x-oss-tagging-count", value: String(count))
        }
        if let status = extra.restoreStatus(now: context.now.timeIntervalSince1970) {
            headers.add(name: "x-oss-restore", value: status)
        }
        extra.addEncryptionHeaders(&headers)
    }
}
