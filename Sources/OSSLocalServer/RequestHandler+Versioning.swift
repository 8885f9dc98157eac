import NIOCore
import NIOHTTP1
import OSSXML

import Foundation

/// PutBucketVersioning, GetBucketVersioning and ListObjectVersions (GetBucketVersions), and the `versionId` that
/// object calls take. The storage side is ObjectStore+Versioning.swift.
///
/// As OSS: a bucket is unversioned until versioning is first set, then `Enabled` or `Suspended`, never unversioned
/// again; a delete without a version id adds a delete marker; GET or HEAD of a key whose latest version is a delete
/// marker is 404 NoSuchKey with `x-oss-delete-marker: true` and the marker's `x-oss-version-id`; a version id naming
/// a delete marker is 405 MethodNotAllowed for every call but DeleteObject; an unknown version id is 404
/// NoSuchVersion. Sources: the OSS API reference (PutBucketVersioning, GetBucketVersioning, ListObjectVersions,
/// DeleteObject, GetObject "versioning" sections, AppendObject "Versioning", the delete-marker guide) and the
/// element names the official clients (alibabacloud-oss-v2, oss2) read.
extension RequestHandler {
    static let versioningStatuses: Set<String> = ["Enabled", "Suspended"]

    /// The `versionId` query parameter (`null` names the null version), or `nil` when absent.
    func requestedVersionId(_ context: RequestContext) throws(LocalOSSError) -> String? {
        guard let id = context.query["versionId"] else { return nil }
        try Self.checkVersionId(id, name: "versionId")
        return id
    }

    /// A version id that cannot be one (empty, or not of the form this server gives) is 400 InvalidArgument, as OSS
    /// answers (oss2's test_object_versioning expects it for a multi-delete naming version `234`); a well-formed id
    /// that names no version is NoSuchVersion.
    static func checkVersionId(_ id: String, name: String) throws(LocalOSSError) {
        guard id == "null" || ObjectStore.isValidVersionId(id) else {
            throw .invalidArgument("Invalid version id specified.", name: name, value: String(id.prefix(64)))
        }
    }

    /// Adds `x-oss-version-id` for a version of a versioned bucket (`null` for its null version); records of an
    /// unversioned bucket carry no version and get none.
    func addVersionHeader(_ headers: inout HTTPHeaders, _ record: ObjectRecord) {
        guard record.versionId != nil || record.versionSequence != nil else { return }
        headers.replaceOrAdd(name: "x-oss-version-id", value: record.versionId ?? "null")
    }

    func putBucketVersioning(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        try await refuseVersioningUnderWorm(bucket, now: context.now)
        let body = try await reader.collect(limit: 64 << 10)
        try verifyContentMD5(context, body: body)
        let root: OSSXMLNode
        do { root = try OSSXMLParser.parse(body.readableBytesView, root: "VersioningConfiguration") } catch {
            throw LocalOSSError.malformedXML("\(error)")
        }
        // OSS answers MalformedXML for a missing Status and for any status but the two (oss2's own
        // test_bucket_versioning expects it for "None" and "Disabled").
        guard let status = root.string("Status"), Self.versioningStatuses.contains(status) else {
            throw LocalOSSError.malformedXML("The Status of a VersioningConfiguration must be Enabled or Suspended.")
        }
        try await store.setVersioning(bucket, status)
        return ServerResponse(status: .ok)
    }

    func getBucketVersioning(_ context: RequestContext) async throws -> ServerResponse {
        let record = try await store.bucket(try requireBucket(context))
        var w = OSSXMLWriter()
        w.open("VersioningConfiguration")
        if let status = record.versioning { w.element("Status", status) }
        w.close("VersioningConfiguration")
        return .xml(w.output)
    }

    func listObjectVersions(_ context: RequestContext) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        let q = context.query
        let prefix = q["prefix"] ?? ""
        let delimiter = q["delimiter"] ?? ""
        let keyMarker = q["key-marker"] ?? ""
        let versionIdMarker = q["version-id-marker"] ?? ""
        // As OSS (and oss2's test_bucket_versioning): names of 1024 bytes or more, and max-keys outside 1...1000,
        // are InvalidArgument.
        for (name, value) in [("prefix", prefix), ("delimiter", delimiter), ("key-marker", keyMarker),
            ("version-id-marker", versionIdMarker)] where value.utf8.count >= 1024
        {
            throw LocalOSSError.invalidArgument(
                "The \(name) must be shorter than 1024 bytes.", name: name, value: String(value.prefix(64)))
        }
        let maxKeysText = q["max-keys"] ?? ""
        let maxKeys = maxKeysText.isEmpty ? 100 : Int(maxKeysText) ?? 0
        guard (1...1000).contains(maxKeys) else {
            throw LocalOSSError.invalidArgument(
                "max-keys must be an integer from 1 to 1000.", name: "max-keys", value: String(maxKeysText.prefix(64)))
        }
        if !versionIdMarker.isEmpty, keyMarker.isEmpty {
            throw LocalOSSError.invalidArgument(
                "A version-id-marker cannot be specified without a key-marker.", name: "version-id-marker",
                value: String(versionIdMarker.prefix(64)))
        }
        let encode = context.encodingTypeURL
        let listing = try await store.listVersions(
            bucket, prefix: prefix, delimiter: delimiter, keyMarker: keyMarker, versionIdMarker: versionIdMarker,
            limit: maxKeys)
        var w = OSSXMLWriter()
        w.open("ListVersionsResult")
        w.element("Name", bucket)
        w.element("Prefix", urlEncoded(prefix, encode))
        w.element("KeyMarker", urlEncoded(keyMarker, encode))
        w.element("VersionIdMarker", versionIdMarker)
        w.element("MaxKeys", String(maxKeys))
        w.element("Delimiter", urlEncoded(delimiter, encode))
        if encode { w.element("EncodingType", "url") }
        w.element("IsTruncated", listing.truncated ? "true" : "false")
        if listing.truncated {
            w.element("NextKeyMarker", urlEncoded(listing.nextKeyMarker ?? "", encode))
            w.element("NextVersionIdMarker", listing.nextVersionIdMarker ?? "")
        }
        var prefixes: [String] = []
        for entry in listing.entries {
            switch entry {
            case .commonPrefix(let group):
                prefixes.append(group)
            case .version(let record, let isLatest) where record.deleteMarker == true:
                w.open("DeleteMarker")
                w.element("Key", urlEncoded(record.key, encode))
                w.element("VersionId", record.versionId ?? "null")
                w.element("IsLatest", isLatest ? "true" : "false")
                w.element("LastModified", isoDate(record.lastModified))
                writeOwner(&w)
                w.close("DeleteMarker")
            case .version(let record, let isLatest):
                w.open("Version")
                w.element("Key", urlEncoded(record.key, encode))
                w.element("VersionId", record.versionId ?? "null")
                w.element("IsLatest", isLatest ? "true" : "false")
                w.element("LastModified", isoDate(record.lastModified))
                w.element("ETag", record.etag)
                w.element("Type", record.objectType)
                w.element("Size", String(record.size))
                w.element("StorageClass", record.extra?.storageClassName ?? "Standard")
                writeOwner(&w)
                if let restore = record.extra?.restoreStatus(now: context.now.timeIntervalSince1970) {
                    w.element("RestoreInfo", restore)
                }
                w.close("Version")
            }
        }
        for group in prefixes {
            w.open("CommonPrefixes")
            w.element("Prefix", urlEncoded(group, encode))
            w.close("CommonPrefixes")
        }
        w.close("ListVersionsResult")
        return .xml(w.output)
    }

    private func writeOwner(_ w: inout OSSXMLWriter) {
        w.open("Owner")
        w.element("ID", ownerId)
        w.element("DisplayName", ownerId)
        w.close("Owner")
    }

    /// The response headers of a delete: whether it added or removed a delete marker, and the version concerned.
    func deleteHeaders(_ outcome: ObjectStore.DeleteOutcome) -> HTTPHeaders {
        var headers = HTTPHeaders()
        if outcome.deleteMarker { headers.add(name: "x-oss-delete-marker", value: "true") }
        if let id = outcome.versionId { headers.add(name: "x-oss-version-id", value: id) }
        return headers
    }
}
