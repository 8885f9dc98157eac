import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

import Foundation

/// CopyObject and UploadPartCopy: server-side copies from `x-oss-copy-source: /bucket/url-encoded-key`.
extension RequestHandler {
    /// The source bucket, key and version of `x-oss-copy-source` (leading `/` optional; `?versionId=` names a
    /// version, `x-oss-copy-source-version-id` style).
    func copySource(_ context: RequestContext) throws(LocalOSSError) -> (bucket: String, key: String, versionId: String?) {
        let raw = context.header("x-oss-copy-source") ?? ""
        let invalid = LocalOSSError.invalidArgument(
            "Copy Source must mention the source bucket and key: /sourcebucket/sourcekey.", name: "x-oss-copy-source",
            value: String(raw.prefix(256)))
        var text = Substring(raw)
        var versionId: String?
        if let q = text.firstIndex(of: "?") {
            let query = OSSPercentEncoding.parseQuery(text[text.index(after: q)...]) ?? [:]
            if let id = query["versionId"] {
                try Self.checkVersionId(id, name: "x-oss-copy-source")
                versionId = id
            }
            text = text[..<q]
        }
        if text.hasPrefix("/") { text = text.dropFirst() }
        guard let slash = text.firstIndex(of: "/") else { throw invalid }
        let bucket = String(text[..<slash])
        guard Router.isValidBucketName(bucket),
            let key = OSSPercentEncoding.decode(text[text.index(after: slash)...], plusAsSpace: false), !key.isEmpty
        else { throw invalid }
        guard key.utf8.count <= Router.maximumKeyLength, key.utf8.first != 0x2F, key.utf8.first != 0x5C else {
            throw LocalOSSError(
                400, "InvalidObjectName", "The source object name is not valid.",
                fields: [("ObjectName", String(key.prefix(64)))])
        }
        return (bucket, key, versionId)
    }

    /// The source object, checked: it exists, the caller may read it, it is restored if archived, and the
    /// `x-oss-copy-source-if-*` conditions hold. Each condition is checked on its own, for CopyObject and
    /// UploadPartCopy alike, and a failure copies nothing:
    /// - If-Match or If-Unmodified-Since failing: 412 with an `<Error>` body, code `PreconditionFailed`;
    /// - If-None-Match or If-Modified-Since failing: 304 Not Modified with no body.
    ///
    /// Sources: the CopyObject reference, request headers table
    /// (https://www.alibabacloud.com/help/tc/object-storage-service/latest/copyobject: if-match and
    /// if-unmodified-since "otherwise 412", if-none-match and if-modified-since "otherwise 304"), and the official
    /// Java SDK's integration test (aliyun/aliyun-oss-java-sdk,
    /// src/test/java/com/aliyun/oss/integrationtests/CopyObjectTest.java), which expects `PreconditionFailed` for
    /// the first two and `NotModified` with the message "Not Modified" (what its OSSErrorResponseHandler makes of a
    /// bodiless 304) for the other two. The docs describe no S3-style rule combining two conditions, so none is
    /// applied.
    func readableCopySource(_ context: RequestContext) async throws -> (bucket: String, key: String, object: ObjectRecord) {
        let (bucket, key, versionId) = try copySource(context)
        let object = try await store.object(bucket, key, versionId: versionId, allowMarker: true)
        if object.deleteMarker == true {  // OSS refuses to copy a delete marker named by its version id
            throw LocalOSSError.invalidArgument(
                "The version of the copy source is a delete marker.", name: "x-oss-copy-source",
                value: String((context.header("x-oss-copy-source") ?? "").prefix(256)))
        }
        try await requireObjectAccess("oss:GetObject", bucket, key, object: object, context: context)
        try requireRestored(object, context: context)
        let etag = ObjectConditions.unquote(object.etag).uppercased()
        func same(_ header: String) -> Bool { ObjectConditions.unquote(header.trimmingWhitespace()).uppercased() == etag }
        let failed = LocalOSSError(412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold.")
        let notModified = LocalOSSError(304, "NotModified", "The source object was not modified.")
        if let ifMatch = context.header("x-oss-copy-source-if-match"), !same(ifMatch) { throw failed }
        if let text = context.header("x-oss-copy-source-if-unmodified-since"), let date = OSSDateFormat.parseRFC1123(text),
            object.lastModified > Int64(date.timeIntervalSince1970)
        {
            throw failed
        }
        if let ifNoneMatch = context.header("x-oss-copy-source-if-none-match"), same(ifNoneMatch) { throw notModified }
        if let text = context.header("x-oss-copy-source-if-modified-since"), let date = OSSDateFormat.parseRFC1123(text),
            object.lastModified <= Int64(date.timeIntervalSince1970)
        {
            throw notModified
        }
        return (bucket, key, object)
    }

    func copyObject(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        _ = try await store.bucket(bucket)
        let directive = (context.header("x-oss-metadata-directive") ?? "COPY").uppercased()
        guard directive == "COPY" || directive == "REPLACE" else {
            throw LocalOSSError.invalidArgument(
                "x-oss-metadata-directive must be COPY or REPLACE.", name: "x-oss-metadata-directive", value: directive)
        }
        let taggingDirective = (context.header("x-oss-tagging-directive") ?? "Copy").lowercased()
        guard taggingDirective == "copy" || taggingDirective == "replace" else {
            throw LocalOSSError.invalidArgument(
                "x-oss-tagging-directive must be Copy or Replace.", name: "x-oss-tagging-directive", value: taggingDirective)
        }
        let requested = try await requestedExtra(context, bucket: bucket) ?? ObjectExtra()
        let source = try await readableCopySource(context)
        if context.header("x-oss-forbid-overwrite")?.lowercased() == "true", await store.objectExists(bucket, key) {
            throw LocalOSSError(409, "FileAlreadyExists", "The object you specified already exists and can not be overwritten.")
        }
        try await refuseForbiddenOverwrite(context, bucket: bucket, key: key)
        var extra = ObjectExtra()
        extra.acl = requested.acl
        extra.storageClass = requested.storageClass
        extra.tags = taggingDirective == "replace" ? requested.tags : source.object.extra?.tags
        extra.symlinkTarget = source.object.extra?.symlinkTarget
        // As in OSS, the copy is encrypted as this request (or the bucket's default) asks, not as its source.
        extra.encryption = requested.encryption
        extra.encryptionKeyId = requested.encryptionKeyId
        extra.dataEncryption = requested.dataEncryption
        let replace = directive == "REPLACE"
        let temp = store.newTempPath()
        let digest: BodyDigest
        do {
            digest = try await FileIO.assemble(store.objectPieces(source.bucket, source.object), into: temp)
        } catch {
            FileIO.remove(temp)
            throw error
        }
        let record = ObjectRecord(
            key: key, size: digest.size, etag: source.object.etag, crc64: digest.crc64,
            lastModified: Int64(context.now.timeIntervalSince1970),
            contentType: replace ? (context.header("content-type") ?? "application/octet-stream") : source.object.contentType,
            contentMD5: source.object.contentMD5,
            userMetadata: replace ? context.userMetadata : source.object.userMetadata,
            headers: replace ? storedHeaders(context) : source.object.headers, objectType: source.object.objectType,
            dataFile: "", extra: extra.isEmpty ? nil : extra)
        let committed = try await store.commitObject(bucket, record: record, tempPath: temp)
        var w = OSSXMLWriter()
        w.open("CopyObjectResult")
        w.element("ETag", committed.etag)
        w.element("LastModified", isoDate(committed.lastModified))
        w.close("CopyObjectResult")
        var response = ServerResponse.xml(w.output)
        response.headers.add(name: "ETag", value: committed.etag)
        response.headers.add(name: "x-oss-hash-crc64ecma", value: String(committed.crc64))
        committed.extra?.addEncryptionHeaders(&response.headers)
        addVersionHeader(&response.headers, committed)
        addCopySourceVersionHeader(&response.headers, source.object)
        return response
    }

    func uploadPartCopy(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let uploadId = try requireUploadId(context)
        let partNumber = try requirePartNumber(context)
        _ = try await store.upload(bucket, key: key, uploadId: uploadId)
        let source = try await readableCopySource(context)
        let range = try copyRange(context.header("x-oss-copy-source-range"), size: source.object.size)
        let temp = store.newTempPath()
        let digest: BodyDigest
        do {
            digest = try await FileIO.assemble(store.objectPieces(source.bucket, source.object, range: range), into: temp)
        } catch {
            FileIO.remove(temp)
            throw error
        }
        let part = try await commitPart(
            partNumber, of: uploadId, bucket: bucket, key: key, digest: digest, tempPath: temp, context: context)
        var w = OSSXMLWriter()
        w.open("CopyPartResult")
        w.element("LastModified", isoDate(part.lastModified))
        w.element("ETag", part.etag)
        w.close("CopyPartResult")
        var response = ServerResponse.xml(w.output)
        response.headers.add(name: "ETag", value: part.etag)
        response.headers.add(name: "x-oss-hash-crc64ecma", value: String(part.crc64))
        addCopySourceVersionHeader(&response.headers, source.object)
        return response
    }

    /// `x-oss-copy-source-version-id`: the version copied, when the source is a version of a versioned bucket.
    func addCopySourceVersionHeader(_ headers: inout HTTPHeaders, _ source: ObjectRecord) {
        guard source.versionId != nil || source.versionSequence != nil else { return }
        headers.replaceOrAdd(name: "x-oss-copy-source-version-id", value: source.versionId ?? "null")
    }

    /// `x-oss-copy-source-range: bytes=first-last` (inclusive, within the object); `nil` copies everything.
    func copyRange(_ header: String?, size: Int64) throws(LocalOSSError) -> ClosedRange<Int64>? {
        guard let header else { return nil }
        let invalid = LocalOSSError.invalidArgument(
            "The x-oss-copy-source-range is invalid for an object of \(size) bytes.", name: "x-oss-copy-source-range",
            value: String(header.prefix(128)))
        let text = header.trimmingWhitespace()
        guard text.lowercased().hasPrefix("bytes=") else { throw invalid }
        let spec = text.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-"), let first = Int64(spec[..<dash]), first >= 0 else { throw invalid }
        let lastText = spec[spec.index(after: dash)...]
        let last = lastText.isEmpty ? size - 1 : Int64(lastText)
        guard let last, last >= first, last < size else { throw invalid }
        return first...last
    }
}
