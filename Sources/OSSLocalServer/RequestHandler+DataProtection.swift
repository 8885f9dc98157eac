import NIOCore
import NIOHTTP1
import OSSXML

import Foundation

/// Data protection on the request side: the bucket retention policy's five calls (InitiateBucketWorm,
/// CompleteBucketWorm, ExtendBucketWorm, AbortBucketWorm, GetBucketWorm), the overwrite rules
/// (PutBucketOverwriteConfig is a family of RequestHandler+BucketConfiguration.swift; the refusal is here) and the
/// bucket's default encryption applied to new objects. The retention itself is enforced by the store
/// (ObjectStore+DataProtection.swift).
///
/// WORM as OSS documents it: a bucket with versioning cannot have a policy (nor a bucket with a policy versioning);
/// a new policy is `InProgress` for 24 hours, then lapses unless CompleteBucketWorm locked it; an unlocked policy
/// can be aborted (204), a locked one only extended (`WORMConfigurationLocked` otherwise), to a longer period
/// (`InvalidWORMConfiguration` otherwise); a policy id that names no live policy is 404 `NoSuchWORMConfiguration`.
extension RequestHandler {
    func bucketWorm(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws
        -> ServerResponse
    {
        let bucket = try requireBucket(context)
        let record = try await store.bucket(bucket)
        let current = try await store.worm(bucket, now: context.now)
        /// The live policy the request's `wormId` names.
        func named() throws(LocalOSSError) -> WormDocument {
            guard let current, current.id == context.query["wormId"] else { throw WormDocument.noSuchPolicy(bucket) }
            return current
        }
        switch operation {
        case .initiateBucketWorm:
            let body = try await reader.collect(limit: 64 << 10)
            try verifyContentMD5(context, body: body)
            let days = try WormDocument.requestedDays(body.readableBytesView, root: "InitiateWormConfiguration")
            guard record.versioning == nil else {
                throw LocalOSSError(
                    409, "InvalidBucketState", "A bucket with versioning cannot have a retention policy.",
                    fields: [("BucketName", bucket)])
            }
            if let current {
                throw LocalOSSError(
                    409, "InvalidWORMConfiguration", "The bucket already has a retention policy (\(current.state)).",
                    fields: [("WormId", current.id)])
            }
            let policy = WormDocument(id: RequestID.make(), retentionDays: days, created: context.now)
            try await store.setWorm(bucket, policy)
            var headers = HTTPHeaders()
            headers.add(name: "x-oss-worm-id", value: policy.id)
            return ServerResponse(status: .ok, headers: headers)
        case .abortBucketWorm:
            guard let current else { throw WormDocument.noSuchPolicy(bucket) }
            guard !current.isLocked else {
                throw LocalOSSError(
                    409, "WORMConfigurationLocked", "A locked retention policy cannot be deleted.", fields: [("WormId", current.id)])
            }
            try await store.setWorm(bucket, nil)
            return ServerResponse(status: .noContent)
        case .completeBucketWorm:
            var policy = try named()
            policy.state = WormDocument.locked
            policy.expires = nil
            try await store.setWorm(bucket, policy)
            return ServerResponse(status: .ok)
        case .extendBucketWorm:
            var policy = try named()
            let body = try await reader.collect(limit: 64 << 10)
            try verifyContentMD5(context, body: body)
            let days = try WormDocument.requestedDays(body.readableBytesView, root: "ExtendWormConfiguration")
            guard policy.isLocked else {
                throw LocalOSSError(
                    409, "InvalidWORMConfiguration", "Only a locked retention policy can be extended.", fields: [("WormId", policy.id)])
            }
            guard days > policy.retentionDays else {
                throw LocalOSSError(
                    400, "InvalidWORMConfiguration",
                    "A retention period can only be extended: \(days) days is not more than \(policy.retentionDays).",
                    fields: [("WormId", policy.id)])
            }
            policy.retentionDays = days
            try await store.setWorm(bucket, policy)
            return ServerResponse(status: .ok)
        default:
            guard let current else { throw WormDocument.noSuchPolicy(bucket) }
            return .xml(try OSSXMLEncoder().encode(current, root: WormDocument.root))
        }
    }

    /// PutBucketVersioning on a bucket whose retention policy lives: refused, as OSS does (EC 0012-00000006).
    func refuseVersioningUnderWorm(_ bucket: String, now: Date) async throws {
        guard try await store.worm(bucket, now: now) != nil else { return }
        throw LocalOSSError(
            409, "InvalidBucketState", "A bucket with a retention policy cannot have versioning.", fields: [("BucketName", bucket)])
    }

    /// Refuses (409 `FileAlreadyExists`, as OSS) a write that would overwrite an existing object a rule of the
    /// bucket's overwrite configuration forbids. As OSS: the rules do not apply to a bucket that has had versioning,
    /// nor to a key with no object yet.
    func refuseForbiddenOverwrite(_ context: RequestContext, bucket: String, key: String) async throws {
        guard let rules = await storedConfiguration(OverwriteDocument.self, .overwrite, bucket: bucket),
            try await store.bucket(bucket).versioning == nil, await store.objectExists(bucket, key)
        else { return }
        let principal = isAnonymous(context) ? nil : ownerId
        guard let rule = rules.rules.first(where: { $0.forbids(key, by: principal) }) else { return }
        throw LocalOSSError(
            409, "FileAlreadyExists", "The object you specified already exists and can not be overwritten.",
            fields: [("OverwriteRuleId", rule.id)])
    }

    /// The ACL, storage class, tags and encryption a write asks for (``requestedExtra(_:)``), with the bucket's
    /// default encryption (PutBucketEncryption) when the request names none, as OSS applies it to new objects.
    func requestedExtra(_ context: RequestContext, bucket: String) async throws -> ObjectExtra? {
        var extra = try requestedExtra(context) ?? ObjectExtra()
        if extra.encryption == nil,
            let rule = await storedConfiguration(EncryptionDocument.self, .encryption, bucket: bucket)?.byDefault
        {
            extra.encryption = rule.algorithm
            if rule.algorithm == "KMS" {
                let key = rule.keyId ?? ""
                extra.encryptionKeyId = key.isEmpty ? configuration.kmsKeyId : key
                extra.dataEncryption = rule.dataEncryption.flatMap { $0.isEmpty ? nil : $0 }
            }
        }
        return extra.isEmpty ? nil : extra
    }
}

extension Router {
    /// The WORM call a bucket-level request names: `POST /?worm`, `POST /?wormId=…` (complete), `POST
    /// /?wormExtend&wormId=…`, `DELETE /?worm`, `GET /?worm`.
    static func wormOperation(_ method: String, _ query: [String: String]) -> LocalOSSOperation? {
        switch method {
        case "POST" where query["wormExtend"] != nil && query["wormId"] != nil: return .extendBucketWorm
        case "POST" where query["wormId"] != nil: return .completeBucketWorm
        case "POST" where query["worm"] != nil: return .initiateBucketWorm
        case "DELETE" where query["worm"] != nil: return .abortBucketWorm
        case "GET" where query["worm"] != nil: return .getBucketWorm
        default: return nil
        }
    }
}
