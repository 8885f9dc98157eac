/// The `metadata` dictionary of every request that creates an object (put, initiate, append, copy, symlink, the
/// resumable upload's `completeMetaHeader`), read the way the iOS SDK's `objectMeta` is: one place for all of them,
/// so that a dictionary ported from iOS means the same thing on every operation.
///
/// - A name starting with `x-oss-meta-` (any case) is user metadata, sent as it is (lower-cased), never as
///   `x-oss-meta-x-oss-meta-name`.
/// - A standard object header (`Content-Type`, `Content-Language`, `Content-Disposition`, `Content-Encoding`,
///   `Cache-Control`, `Expires`) or any other `x-oss-` header (`x-oss-object-acl`, `x-oss-storage-class`,
///   `x-oss-tagging`, ...) is sent as that header, as iOS sends every `objectMeta` entry.
/// - Any other name is user metadata without its prefix: `author` is sent as `x-oss-meta-author`.
///
/// A header given in the request's `headers` wins over the same header here.
enum OSSObjectMetadata {
    static let userPrefix = "x-oss-meta-"

    /// The standard HTTP headers OSS keeps as object metadata.
    static let standardHeaders: Set<String> = [
        "content-type", "content-language", "content-disposition", "content-encoding", "cache-control", "expires",
    ]

    /// The header an entry is sent as.
    static func headerName(for name: String) -> String {
        let lower = name.lowercased()
        if lower.hasPrefix(userPrefix) || standardHeaders.contains(lower) || lower.hasPrefix("x-oss-") { return lower }
        return userPrefix + lower
    }

    /// Whether an entry sets metadata the object keeps (user metadata or a standard header), as opposed to a
    /// request option such as `x-oss-object-acl`: a copy given such an entry replaces the source's metadata.
    static func isObjectMetadata(_ name: String) -> Bool {
        let header = headerName(for: name)
        return header.hasPrefix(userPrefix) || standardHeaders.contains(header)
    }

    /// Adds `metadata` to `operation` as headers, leaving the headers the operation already has.
    static func apply(_ metadata: [String: String], to operation: inout OSSOperation) {
        for (name, value) in metadata {
            let header = headerName(for: name)
            if operation.headers[header] == nil { operation.setHeader(header, value) }
        }
    }

    /// Adds `metadata` and the object's `Content-Type`, which comes from, in order: the request's `headers`,
    /// `contentType`, a `Content-Type` entry of `metadata`, a guess from `names` (``OSSMimeType``: the local file,
    /// then the object key), else `application/octet-stream`.
    static func apply(
        _ metadata: [String: String], contentType: String?, guessedFrom names: [String?], to operation: inout OSSOperation
    ) {
        if operation.headers["content-type"] == nil { operation.setHeader("content-type", contentType) }
        apply(metadata, to: &operation)
        if operation.headers["content-type"] == nil {
            let guess = names.lazy.compactMap { $0.flatMap(OSSMimeType.guess(for:)) }.first
            operation.setHeader("content-type", guess ?? OSSMimeType.defaultType)
        }
    }
}
