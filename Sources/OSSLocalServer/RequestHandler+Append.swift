import Crypto
import NIOCore
import NIOHTTP1
import OSSCRC64
import OSSSigning

import Foundation

/// AppendObject (`POST /key?append&position=n`): creates an Appendable object or adds bytes at its end.
///
/// The appended bytes become one new segment file of the object (see ObjectStore+Append.swift); the object is
/// never rewritten. Its CRC-64 is chained with `CRC64.combine` (the previous object's CRC, then the body's) and
/// checked against the combination of its segments' CRCs, without reading the object again. Small segments are
/// merged now and then (``AppendCompaction``).
///
/// The ETag of an Appendable object is not the MD5 of its content (OSS's is not either; the SDKs and oss2 treat
/// it as opaque): the first append's is the MD5 of its bytes, each later one's the MD5 of the previous ETag's hex
/// followed by the appended bytes' MD5 hex, so it changes with every append without hashing the whole object.
extension RequestHandler {
    func appendObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        _ = try await store.bucket(bucket)
        if context.query["versionId"] != nil {  // OSS appends to the current version only
            throw LocalOSSError.invalidArgument("AppendObject does not take a versionId.", name: "versionId")
        }
        let positionText = context.query["position"] ?? ""
        guard let position = Int64(positionText), position >= 0 else {
            throw LocalOSSError.invalidArgument(
                "position must be a non-negative integer.", name: "position", value: positionText)
        }
        let existing = await store.objectExists(bucket, key) ? try await store.object(bucket, key) : nil
        if let existing, existing.objectType != "Appendable" || existing.extra?.sealedAt != nil {
            throw LocalOSSError(409, "ObjectNotAppendable", "The object is not appendable")
        }
        let length = existing?.size ?? 0
        guard position == length else { throw LocalOSSError.positionNotEqualToLength(length) }
        let extra = existing == nil ? try await requestedExtra(context, bucket: bucket) : existing?.extra
        try await refuseForbiddenOverwrite(context, bucket: bucket, key: key)
        let received = store.newTempPath()
        let body = try await BodySink.receive(reader, to: received, computeSHA256: declaresPayloadHash(context))
        do { try verifyContentMD5(context, digest: body) } catch {
            FileIO.remove(received)
            throw error
        }
        let previous = existing?.contentSegments ?? []
        let (keep, segment, temp) = try await appendedSegment(
            bucket, key: key, previous: previous, expected: existing?.dataFiles, body: body, received: received)
        let crc = existing.map { CRC64.combine($0.crc64, body.crc64, length2: UInt64(body.size)) } ?? body.crc64
        guard crc == Self.chainedCRC(keep + [segment]) else {
            FileIO.remove(temp)
            throw LocalOSSError.internalError("the appended object's CRC-64 does not chain")
        }
        var etag = body.etag
        if let existing {
            let chained = Insecure.MD5.hash(data: Data((ObjectConditions.unquote(existing.etag) + body.md5Hex).utf8))
            etag = "\"" + chained.map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined() + "\""
        }
        let record = ObjectRecord(
            key: key, size: length + body.size, etag: etag, crc64: crc,
            lastModified: Int64(context.now.timeIntervalSince1970),
            contentType: existing?.contentType ?? context.header("content-type") ?? "application/octet-stream",
            contentMD5: nil, userMetadata: existing?.userMetadata ?? context.userMetadata,
            headers: existing?.headers ?? storedHeaders(context), objectType: "Appendable", dataFile: "", extra: extra)
        let committed = try await store.commitAppend(
            bucket, record: record, expected: existing?.dataFiles, keep: keep, segment: segment, tempPath: temp)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: committed.etag)
        headers.add(name: "x-oss-next-append-position", value: String(committed.size))
        headers.add(name: "x-oss-hash-crc64ecma", value: String(committed.crc64))
        committed.extra?.addEncryptionHeaders(&headers)
        addVersionHeader(&headers, committed)
        return ServerResponse(status: .ok, headers: headers)
    }

    /// The segments an append keeps, the new segment and the file holding its bytes: the received body itself,
    /// or, when ``AppendCompaction`` merges the small tail, a new file of that tail followed by the body (the
    /// received file is then removed). The merged file's CRC-64 must equal the combination of its parts'.
    private func appendedSegment(
        _ bucket: String, key: String, previous: [ObjectSegment], expected: [String]?, body: BodyDigest, received: String
    ) async throws -> (keep: [ObjectSegment], segment: ObjectSegment, path: String) {
        let appended = ObjectSegment(file: "", length: body.size, crc64: body.crc64, partNumber: 0)
        let count = AppendCompaction.mergeCount(
            previous.map(\.length) + [body.size], threshold: configuration.appendCompactionBytes)
        guard count > 1 else { return (previous, appended, received) }
        defer { FileIO.remove(received) }
        let tail = previous.suffix(count - 1)
        let merged = Array(tail) + [appended]
        let dir = store.objectsDirectory(bucket)
        let pieces =
            tail.map { FileIO.Piece(path: dir + "/" + $0.file, offset: 0, length: $0.length) }
            + [FileIO.Piece(path: received, offset: 0, length: body.size)]
        let temp = store.newTempPath()
        let written: BodyDigest
        do { written = try await FileIO.assemble(pieces, into: temp) } catch {
            FileIO.remove(temp)
            // A segment vanished: the object was replaced or deleted meanwhile, so this append lost the race.
            let current = try? await store.object(bucket, key)
            if current?.dataFiles != expected { throw LocalOSSError.positionNotEqualToLength(current?.size ?? 0) }
            throw error
        }
        let expectedLength = merged.reduce(Int64(0)) { $0 + $1.length }
        guard written.size == expectedLength, written.crc64 == Self.chainedCRC(merged) else {
            FileIO.remove(temp)
            throw LocalOSSError.internalError("merged append segments do not match their CRC-64")
        }
        let segment = ObjectSegment(file: "", length: written.size, crc64: written.crc64, partNumber: 0)
        return (Array(previous.dropLast(count - 1)), segment, temp)
    }

    /// The CRC-64 of segments' bytes one after the other, from their CRCs alone.
    static func chainedCRC(_ segments: [ObjectSegment]) -> UInt64 {
        segments.reduce(UInt64(0)) { CRC64.combine($0, $1.crc64, length2: UInt64($1.length)) }
    }
}

extension RequestHandler {
    /// SealAppendObject (`POST /key?seal&position=N`): `position` is the object's length; the object takes no more
    /// appends, and `x-oss-sealed-time` is the time of the first seal (sealing again answers it unchanged).
    func sealAppendObject(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let positionText = context.query["position"] ?? ""
        guard let position = Int64(positionText), position >= 0 else {
            throw LocalOSSError.invalidArgument("position must be a non-negative integer.", name: "position", value: positionText)
        }
        let object = try await store.object(bucket, key)
        guard object.objectType == "Appendable" else { throw LocalOSSError(409, "ObjectNotAppendable", "The object is not appendable") }
        guard position == object.size else { throw LocalOSSError.positionNotEqualToLength(object.size) }
        let now = context.now.timeIntervalSince1970
        let sealed = try await store.updateObject(bucket, key, versionId: nil) { record in
            var extra = record.extra ?? ObjectExtra()
            if extra.sealedAt == nil { extra.sealedAt = now }
            record.extra = extra
        }.extra?.sealedAt ?? now
        var headers = HTTPHeaders()
        headers.add(name: "x-oss-sealed-time", value: OSSDateFormat.rfc1123(Date(timeIntervalSince1970: sealed)))
        return ServerResponse(status: .ok, headers: headers)
    }
}
