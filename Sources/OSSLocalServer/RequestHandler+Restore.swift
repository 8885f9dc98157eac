import NIOCore
import NIOHTTP1
import OSSXML

import Foundation

/// RestoreObject (`POST /key?restore`): an Archive object becomes readable `restoreDelay` after the request.
extension RequestHandler {
    func restoreObject(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let body = try await reader.collect(limit: 64 << 10)
        var days = 1
        if body.readableBytes > 0 {
            let root: OSSXMLNode
            do { root = try OSSXMLParser.parse(body.readableBytesView, root: "RestoreRequest") } catch {
                throw LocalOSSError.malformedXML("\(error)")
            }
            if let text = root.string("Days") {
                guard let n = Int(text), (1...365).contains(n) else {
                    throw LocalOSSError.invalidArgument("Days must be between 1 and 365.", name: "Days", value: text)
                }
                days = n
            }
        }
        let now = context.now.timeIntervalSince1970
        let delay = configuration.restoreDelay
        let object = try await store.object(bucket, key)
        guard let extra = object.extra, extra.needsRestore else {
            throw LocalOSSError(400, "OperationNotSupported", "The operation is not supported for this resource")
        }
        if let ready = extra.restoreReadyAt, now < ready {
            throw LocalOSSError(409, "RestoreAlreadyInProgress", "The restore operation is in progress.")
        }
        let restoreDays = days
        let alreadyRestored = extra.restoreReadyAt != nil && now < (extra.restoreExpiresAt ?? 0)
        try await store.updateObject(bucket, key) { record in
            var updated = record.extra ?? ObjectExtra()
            if !alreadyRestored { updated.restoreReadyAt = now + delay }
            updated.restoreExpiresAt = (updated.restoreReadyAt ?? now) + Double(restoreDays) * 86_400
            record.extra = updated
        }
        return ServerResponse(status: alreadyRestored ? .ok : .accepted)
    }
}
