import NIOCore
import NIOHTTP1
import OSSXML

import Foundation

/// Object-level retention and legal hold (ObjectWorm) on the request side: PutObjectRetention, GetObjectRetention
/// (`?retention`), PutObjectLegalHold, GetObjectLegalHold (`?legalHold`), each on the current version or the one
/// `versionId` names. What they protect is enforced by the store (ObjectStore+DataProtection.swift).
///
/// As OSS documents it: the bucket needs ObjectWorm (PutBucketObjectWormConfiguration); an appendable object takes
/// no retention; RetainUntilDate is in the future; a COMPLIANCE retention is only ever extended (a shorter date or a
/// switch to GOVERNANCE is refused), a GOVERNANCE one is shortened, switched or extended freely only with
/// `x-oss-bypass-governance-retention: true` (otherwise only extended or turned into COMPLIANCE).
extension RequestHandler {
    func objectWorm(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws
        -> ServerResponse
    {
        let (bucket, key) = try requireBucketAndKey(context)
        let versionId = try requestedVersionId(context)
        guard await store.objectWorm(bucket) != nil else { throw LocalOSSError.objectWormNotEnabled(bucket) }
        switch operation {
        case .getObjectRetention, .getObjectLegalHold:
            let object = try await store.object(bucket, key, versionId: versionId)
            let body: String
            if operation == .getObjectLegalHold {
                let status = object.extra?.legalHold == true ? "ON" : "OFF"
                body = try OSSXMLEncoder().encode(LegalHoldDocument(status: status), root: LegalHoldDocument.root)
            } else {
                guard let retention = object.extra?.retention else {
                    throw LocalOSSError(
                        404, "NoSuchObjectRetention", "The object version has no retention.", fields: [("Key", key)])
                }
                body = try OSSXMLEncoder().encode(RetentionDocument(retention), root: RetentionDocument.root)
            }
            var response = ServerResponse.xml(body)
            addVersionHeader(&response.headers, object)
            return response
        default:
            let body = try await reader.collect(limit: 64 << 10)
            try verifyContentMD5(context, body: body)
            let change: @Sendable (inout ObjectRecord) throws(LocalOSSError) -> Void
            if operation == .putObjectLegalHold {
                let document: LegalHoldDocument
                do {
                    document = try OSSXMLDecoder().decode(LegalHoldDocument.self, from: body.readableBytesView, root: LegalHoldDocument.root)
                } catch { throw LocalOSSError.malformedXML("\(error)") }
                guard document.status == "ON" || document.status == "OFF" else {
                    throw LocalOSSError.invalidArgument("Status is ON or OFF.", name: "Status", value: document.status)
                }
                let on = document.status == "ON"
                change = { record in
                    var extra = record.extra ?? ObjectExtra()
                    extra.legalHold = on ? true : nil
                    record.extra = extra.isEmpty ? nil : extra
                }
            } else {
                let document: RetentionDocument
                do {
                    document = try OSSXMLDecoder().decode(RetentionDocument.self, from: body.readableBytesView, root: RetentionDocument.root)
                } catch { throw LocalOSSError.malformedXML("\(error)") }
                let now = context.now
                let wanted = try document.retention(now: now)
                let bypass = bypassesGovernance(context)
                change = { record throws(LocalOSSError) in
                    guard record.objectType != "Appendable" else {
                        throw LocalOSSError(
                            409, "InvalidObjectState", "An appendable object cannot have a retention.", fields: [("Key", key)])
                    }
                    var extra = record.extra ?? ObjectExtra()
                    if let current = extra.retention, current.isActive(at: now) {
                        // Weaker: an earlier date, or COMPLIANCE turned into GOVERNANCE (the other way is stronger).
                        let shortens = wanted.until < current.until
                            || (current.mode == ObjectRetention.compliance && wanted.mode != current.mode)
                        if shortens, current.mode == ObjectRetention.compliance || !bypass {
                            throw LocalOSSError(
                                403, "AccessDenied",
                                "A \(current.mode) retention can only be extended"
                                    + (current.mode == ObjectRetention.governance
                                        ? " unless x-oss-bypass-governance-retention is true." : "."),
                                fields: [("Key", key)])
                        }
                    }
                    extra.retention = wanted
                    record.extra = extra
                }
            }
            let updated = try await store.updateObject(bucket, key, versionId: versionId, change)
            var headers = HTTPHeaders()
            addVersionHeader(&headers, updated)
            return ServerResponse(status: .ok, headers: headers)
        }
    }

    /// Whether a request asks to pass GOVERNANCE retention and may: `x-oss-bypass-governance-retention: true` on a
    /// signed request (an anonymous one never bypasses).
    func bypassesGovernance(_ context: RequestContext) -> Bool {
        context.header("x-oss-bypass-governance-retention")?.lowercased() == "true" && !isAnonymous(context)
    }
}
