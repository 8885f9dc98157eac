import NIOCore
import NIOHTTP1
import OSSCRC64

import Foundation

/// AppendObject (`POST /key?append&position=n`): creates an Appendable object or adds bytes at its end.
extension RequestHandler {
    func appendObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        _ = try await store.bucket(bucket)
        let positionText = context.query["position"] ?? ""
        guard let position = Int64(positionText), position >= 0 else {
            throw LocalOSSError.invalidArgument(
                "position must be a non-negative integer.", name: "position", value: positionText)
        }
        let existing = await store.objectExists(bucket, key) ? try await store.object(bucket, key) : nil
        if let existing, existing.objectType != "Appendable" {
            throw LocalOSSError(409, "ObjectNotAppendable", "The object is not appendable")
        }
        let length = existing?.size ?? 0
        guard position == length else { throw LocalOSSError.positionNotEqualToLength(length) }
        let extra = existing == nil ? try requestedExtra(context) : existing?.extra
        let received = store.newTempPath()
        let body = try await BodySink.receive(reader, to: received, computeSHA256: declaresPayloadHash(context))
        do { try verifyContentMD5(context, digest: body) } catch {
            FileIO.remove(received)
            throw error
        }
        var temp = received
        var whole = body
        if let existing {
            temp = store.newTempPath()
            defer { FileIO.remove(received) }
            let pieces = store.objectPieces(bucket, existing) + [FileIO.Piece(path: received, offset: 0, length: body.size)]
            do { whole = try await FileIO.assemble(pieces, into: temp) } catch {
                FileIO.remove(temp)
                throw error
            }
        }
        let crc = existing.map { CRC64.combine($0.crc64, body.crc64, length2: UInt64(body.size)) } ?? body.crc64
        guard crc == whole.crc64 else {
            FileIO.remove(temp)
            throw LocalOSSError.internalError("the appended object's CRC-64 does not chain")
        }
        let record = ObjectRecord(
            key: key, size: whole.size, etag: whole.etag, crc64: crc,
            lastModified: Int64(context.now.timeIntervalSince1970),
            contentType: existing?.contentType ?? context.header("content-type") ?? "application/octet-stream",
            contentMD5: nil, userMetadata: existing?.userMetadata ?? context.userMetadata,
            headers: existing?.headers ?? storedHeaders(context), objectType: "Appendable", dataFile: "", extra: extra)
        let committed = try await store.commitAppend(
            bucket, record: record, expectedDataFile: existing?.dataFile, tempPath: temp)
        var headers = HTTPHeaders()
        headers.add(name: "ETag", value: committed.etag)
        headers.add(name: "x-oss-next-append-position", value: String(committed.size))
        headers.add(name: "x-oss-hash-crc64ecma", value: String(committed.crc64))
        return ServerResponse(status: .ok, headers: headers)
    }
}
