import AliyunOSS
import ArgumentParser

/// What an upload gives the objects it creates (`oss cp`, `cp -`, `cp -r`, `sync`): content type, ACL, user
/// metadata, storage class. Each becomes an entry of the SDK's object metadata (``OSSPutObjectRequest/metadata``,
/// ``OSSResumableUploadRequest/completeMetaHeader``, ``OSSStreamUploadOptions/metadata``,
/// ``OSSDirectoryTransferOptions/objectMetadata``), sent with PutObject or InitiateMultipartUpload.
struct UploadOptions: ParsableArguments {
    static let acls = ["private", "public-read", "public-read-write", "default"]
    static let storageClasses = ["Standard", "IA", "Archive", "ColdArchive", "DeepColdArchive"]

    @Option(help: "Content-Type of the uploaded objects (default: guessed from each file's extension, then the key's, else application/octet-stream).")
    var contentType: String?
    @Option(help: "Object ACL: private, public-read, public-read-write or default (the bucket's; default).")
    var acl: String?
    @Option(name: .customLong("meta"), help: ArgumentHelp("User metadata sent as x-oss-meta-KEY (repeatable).", valueName: "key=value"))
    var meta: [String] = []
    @Option(help: "Storage class: Standard, IA, Archive, ColdArchive or DeepColdArchive (default: the bucket's).")
    var storageClass: String?

    var isEmpty: Bool { contentType == nil && acl == nil && meta.isEmpty && storageClass == nil }

    func validate() throws {
        _ = try metadata()
    }

    /// The options as object metadata entries (`Content-Type`, `x-oss-object-acl`, `x-oss-meta-*`,
    /// `x-oss-storage-class`); a bad value is a `ValidationError` naming the accepted ones.
    func metadata() throws -> [String: String] {
        var entries: [String: String] = [:]
        if let contentType {
            guard !contentType.isEmpty, !contentType.contains(where: \.isNewline) else {
                throw ValidationError("--content-type needs a media type such as text/html")
            }
            entries["Content-Type"] = contentType
        }
        if let acl {
            guard let known = Self.acls.first(where: { $0 == acl.lowercased() }) else {
                throw ValidationError("--acl must be one of \(Self.acls.joined(separator: ", ")), not \(acl)")
            }
            entries["x-oss-object-acl"] = known
        }
        if let storageClass {
            guard let known = Self.storageClasses.first(where: { $0.lowercased() == storageClass.lowercased() }) else {
                throw ValidationError(
                    "--storage-class must be one of \(Self.storageClasses.joined(separator: ", ")), not \(storageClass)")
            }
            entries["x-oss-storage-class"] = known
        }
        for item in meta {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair.first.map(String.init)?.lowercased() ?? ""
            guard pair.count == 2, !name.isEmpty,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else {
                throw ValidationError(
                    "--meta takes key=value with a key of letters, digits, - and _ (sent as x-oss-meta-key), not \(item)")
            }
            let key = name.hasPrefix("x-oss-meta-") ? name : "x-oss-meta-" + name
            entries[key] = String(pair[1])
        }
        return entries
    }
}
