import Crypto
import NIOCore
import NIOHTTP1
import OSSSigning

import Foundation

extension RequestHandler {
    func requireBucketAndKey(_ context: RequestContext) throws(LocalOSSError) -> (String, String) {
        guard let bucket = context.bucket, let key = context.key else {
            throw .invalidArgument("The request needs a bucket and an object key.")
        }
        return (bucket, key)
    }

    /// Checks a `Content-MD5` header against the received body.
    /// Whether the request declares a V4 payload hash (`x-oss-content-sha256` other than `UNSIGNED-PAYLOAD`), which
    /// the body must then match.
    func declaresPayloadHash(_ context: RequestContext) -> Bool {
        guard let value = context.header("x-oss-content-sha256") else { return false }
        return value != OSSSignerV4.unsignedPayload
    }

    func verifyContentMD5(_ context: RequestContext, digest: BodyDigest) throws(LocalOSSError) {
        if declaresPayloadHash(context), let declared = context.header("x-oss-content-sha256") {
            guard declared.lowercased() == digest.sha256Hex else {
                throw LocalOSSError(
                    400, "InvalidDigest", "The x-oss-content-sha256 you specified did not match what we received.",
                    fields: [("ContentSHA256", declared), ("ExpectedContentSHA256", digest.sha256Hex ?? "")])
            }
        }
        guard let provided = context.header("content-md5") else { return }
        guard let decoded = Data(base64Encoded: provided), decoded.count == 16 else {
            throw LocalOSSError(400, "InvalidDigest", "The Content-MD5 you specified is not valid.")
        }
        guard Array(decoded) == digest.md5 else {
            throw LocalOSSError(
                400, "InvalidDigest", "The Content-MD5 you specified did not match what we received.",
                fields: [("ContentMD5", provided), ("ExpectedContentMD5", digest.md5Base64)])
        }
    }

    /// Checks a `Content-MD5` header against a body collected in memory (XML documents).
    func verifyContentMD5(_ context: RequestContext, body: ByteBuffer) throws(LocalOSSError) {
        let declaresHash = declaresPayloadHash(context)
        guard context.header("content-md5") != nil || declaresHash else { return }
        let bytes = Array(body.readableBytesView)
        let md5 = Array(Insecure.MD5.hash(data: bytes))
        let sha256Hex = declaresHash ? SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() : nil
        try verifyContentMD5(
            context, digest: BodyDigest(size: Int64(body.readableBytes), md5: md5, crc64: 0, sha256Hex: sha256Hex))
    }

    func storedHeaders(_ context: RequestContext) -> [String: String] {
        var headers: [String: String] = [:]
        for name in storedObjectHeaders { if let v = context.header(name) { headers[name] = v } }
        return headers
    }

    func putObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        _ = try await store.bucket(bucket)
        let extra = try await requestedExtra(context, bucket: bucket)
        let callback = try CallbackRequest.parse(context)
        if context.header("x-oss-forbid-overwrite")?.lowercased() == "true", await store.objectExists(bucket, key) {
            throw LocalOSSError(409, "FileAlreadyExists", "The object you specified already exists and can not be overwritten.")
        }
        try await refuseForbiddenOverwrite(context, bucket: bucket, key: key)
        let temp = store.newTempPath()
        let digest = try await BodySink.receive(reader, to: temp, computeSHA256: declaresPayloadHash(context))
        do { try verifyContentMD5(context, digest: digest) } catch {
            FileIO.remove(temp)
            throw error
        }
        let record = ObjectRecord(
            key: key, size: digest.size, etag: digest.etag, crc64: digest.crc64,
            lastModified: Int64(context.now.timeIntervalSince1970),
            contentType: context.header("content-type") ?? "application/octet-stream", contentMD5: digest.md5Base64,
            userMetadata: context.userMetadata, headers: storedHeaders(context), objectType: "Normal", dataFile: "",
            extra: extra)
        let committed = try await store.commitObject(bucket, record: record, tempPath: temp)
        let headers = storedUploadHeaders(committed, md5Base64: digest.md5Base64)
        if let callback {
            return try await callbackResponse(
                callback, headers: headers, context: context, bucket: bucket, object: committed)
        }
        return ServerResponse(status: .ok, headers: headers)
    }

    /// The reply headers of a stored upload (PutObject, PostObject): ETag, CRC-64, Content-MD5, encryption, version.
    func storedUploadHeaders(_ committed: ObjectRecord, md5Base64: String) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: committed.etag)
        headers.add(name: "x-oss-hash-crc64ecma", value: String(committed.crc64))
        headers.add(name: "Content-MD5", value: md5Base64)
        committed.extra?.addEncryptionHeaders(&headers)
        addVersionHeader(&headers, committed)
        return headers
    }

    /// The headers describing an object (GetObject, HeadObject). For a symlink, as OSS documents for HeadObject, the
    /// headers that describe the bytes (Content-Length, ETag, Content-MD5, CRC-64, storage class and restore state)
    /// are the target's, Last-Modified is the later of the two, and the rest (object type, user metadata, tag count,
    /// the stored standard headers) are the symlink's own. Content-Type is the target's (clients send one with every
    /// PutSymlink, application/octet-stream by default, which would hide the target's type).
    func objectHeaders(_ readable: ReadableObject, context: RequestContext) -> HTTPHeaders {
        let object = readable.data
        let owner = readable.link ?? object
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: context.query["response-content-type"] ?? object.contentType)
        headers.add(name: "ETag", value: object.etag)
        let lastModified = max(object.lastModified, readable.link?.lastModified ?? 0)
        headers.add(name: "Last-Modified", value: OSSDateFormat.rfc1123(Date(timeIntervalSince1970: TimeInterval(lastModified))))
        headers.add(name: "x-oss-hash-crc64ecma", value: String(object.crc64))
        headers.add(name: "x-oss-object-type", value: owner.objectType)
        if owner.objectType == "Appendable" {  // as OSS answers, so a client can resume appending after a HEAD
            headers.add(name: "x-oss-next-append-position", value: String(object.size))
        }
        headers.add(name: "Accept-Ranges", value: "bytes")
        // A sequential multipart upload's object has its content's MD5 too.
        if let md5 = object.contentMD5, object.objectType == "Normal" || object.objectType == "Multipart" {
            headers.add(name: "Content-MD5", value: md5)
        }
        addExtraHeaders(&headers, data: object, owner: owner, context: context)
        for (name, value) in owner.userMetadata.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        for name in storedObjectHeaders {
            let override = context.query["response-" + name]
            if let value = override ?? owner.headers[name] { headers.add(name: name, value: value) }
        }
        return headers
    }

    func getObject(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let readable = try await readableObject(bucket, key, context: context)
        let object = readable.data
        var headers = objectHeaders(readable, context: context)
        addVersionHeader(&headers, readable.link ?? object)
        if try ObjectConditions.evaluate(context, object: object) == .notModified {
            headers.remove(name: "Content-Type")
            return ServerResponse(status: .notModified, headers: headers)
        }
        let standard = context.header("x-oss-range-behavior")?.lowercased() == "standard"
        if let range = try ObjectConditions.range(context.header("range"), size: object.size, standard: standard) {
            headers.add(name: "Content-Range", value: "bytes \(range.lowerBound)-\(range.upperBound)/\(object.size)")
            let length = range.upperBound - range.lowerBound + 1
            return ServerResponse(
                status: .partialContent, headers: headers,
                body: .segments(store.objectSegments(bucket, object, offset: range.lowerBound, length: length)))
        }
        var response = ServerResponse(
            status: .ok, headers: headers, body: .segments(store.objectSegments(bucket, object, offset: 0, length: object.size)))
        if repliesWithGzip(context, contentType: headers.first(name: "Content-Type") ?? "", size: object.size) {
            encodeWithGzip(&response)
        }
        return response
    }

    /// `HEAD /key?objectMeta`: ETag, size and times only.
    func getObjectMeta(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let object = try await store.object(bucket, key, versionId: try requestedVersionId(context))
        var headers = HTTPHeaders()
        addVersionHeader(&headers, object)
        headers.add(name: "ETag", value: object.etag)
        headers.add(
            name: "Last-Modified",
            value: OSSDateFormat.rfc1123(Date(timeIntervalSince1970: TimeInterval(object.lastModified))))
        headers.add(name: "x-oss-hash-crc64ecma", value: String(object.crc64))
        headers.add(name: "x-oss-object-type", value: object.objectType)
        headers.add(name: "x-oss-content-length", value: String(object.size))
        var response = ServerResponse(status: .ok, headers: headers)
        if context.head.method == .HEAD {
            // A HEAD reply carries no body; Content-Length describes the object, as OSS does.
            response.body = .segments(store.objectSegments(bucket, object, offset: 0, length: object.size))
        }
        return response
    }

    func deleteObject(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let outcome = try await store.deleteObject(
            bucket, key, versionId: try requestedVersionId(context), bypassGovernance: bypassesGovernance(context))
        return ServerResponse(status: .noContent, headers: deleteHeaders(outcome))
    }
}
