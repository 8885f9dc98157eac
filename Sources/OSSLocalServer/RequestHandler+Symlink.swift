import NIOHTTP1
import OSSSigning

import Foundation

/// PutSymlink / GetSymlink. A symlink is an object of type `Symlink` with no bytes and its own metadata, tags, ACL and
/// storage class; GET and HEAD of it read its target (``readableObject(_:_:context:)``, ``objectHeaders(_:context:)``).
extension RequestHandler {
    func putSymlink(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        _ = try await store.bucket(bucket)
        guard let raw = context.header("x-oss-symlink-target"), !raw.isEmpty else {
            throw LocalOSSError.invalidArgument("x-oss-symlink-target is required.", name: "x-oss-symlink-target")
        }
        guard let target = OSSPercentEncoding.decode(raw), !target.isEmpty,
            target.utf8.count <= Router.maximumKeyLength, target.utf8.first != 0x2F, target.utf8.first != 0x5C
        else {
            throw LocalOSSError(
                400, "InvalidObjectName", "The symlink target is not a valid object name.",
                fields: [("SymlinkTarget", String(raw.prefix(64)))])
        }
        if context.header("x-oss-forbid-overwrite")?.lowercased() == "true", await store.objectExists(bucket, key) {
            throw LocalOSSError(409, "FileAlreadyExists", "The object you specified already exists and can not be overwritten.")
        }
        try await refuseForbiddenOverwrite(context, bucket: bucket, key: key)
        var extra = try requestedExtra(context) ?? ObjectExtra()
        extra.symlinkTarget = target
        let temp = store.newTempPath()
        let digest = try await FileIO.assemble([], into: temp)
        let record = ObjectRecord(
            key: key, size: 0, etag: digest.etag, crc64: 0, lastModified: Int64(context.now.timeIntervalSince1970),
            contentType: context.header("content-type") ?? "application/octet-stream", contentMD5: nil,
            userMetadata: context.userMetadata, headers: storedHeaders(context), objectType: "Symlink", dataFile: "",
            extra: extra)
        let committed = try await store.commitObject(bucket, record: record, tempPath: temp)
        var reply = HTTPHeaders()
        reply.add(name: "ETag", value: committed.etag)
        addVersionHeader(&reply, committed)
        return ServerResponse(status: .ok, headers: reply)
    }

    func getSymlink(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let object = try await store.object(bucket, key, versionId: try requestedVersionId(context))
        guard let target = object.extra?.symlinkTarget else {
            throw LocalOSSError(400, "NotSymlink", "The specified object is not a symlink.", fields: [("Key", key)])
        }
        var headers = HTTPHeaders()
        headers.add(name: "x-oss-symlink-target", value: OSSPercentEncoding.encode(target, keepSlash: true))
        addVersionHeader(&headers, object)
        headers.add(name: "ETag", value: object.etag)
        headers.add(name: "Last-Modified", value: OSSDateFormat.rfc1123(.init(timeIntervalSince1970: Double(object.lastModified))))
        for (name, value) in object.userMetadata.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        return ServerResponse(status: .ok, headers: headers)
    }
}
