import Foundation
import NIOCore
import NIOHTTP1
import OSSXML

/// The server's models of the access-control families (bucket policy, public access block), written from OSS's API
/// reference with OSS's checks. What they enforce is in RequestHandler+Authorization.swift.

/// The bucket policy (PutBucketPolicy): JSON, read and checked by ``BucketPolicy``; refused with 400
/// `InvalidPolicyDocument` when it does not parse, and with 403 `AccessDenied` when it grants public access while a
/// public access block is on. Stored as sent.
enum BucketPolicyDocument {
    static func accept(_ body: [UInt8], _ check: ConfigurationCheck) async throws -> [UInt8] {
        let policy: BucketPolicy
        do { policy = try BucketPolicy(json: body) } catch {
            throw LocalOSSError(400, "InvalidPolicyDocument", error.message)
        }
        if policy.isPublic, await PublicAccessBlockDocument.blocks(check.bucket, store: check.store) {
            throw LocalOSSError.accessDenied(
                "Public access is blocked: a policy granting access to everyone cannot be set while the public access block is on.")
        }
        return body
    }
}

extension RequestHandler {
    /// GetBucketPolicyStatus (`GET /?policyStatus`): `IsPublic` as OSS defines it (``BucketPolicy/isPublic``), false
    /// for a bucket without a policy.
    func getBucketPolicyStatus(_ context: RequestContext) async throws -> ServerResponse {
        let stored = try await store.configuration(try requireBucket(context), .policy)
        let isPublic = stored.flatMap { try? BucketPolicy(json: $0) }?.isPublic ?? false
        return .xml("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<PolicyStatus><IsPublic>\(isPublic)</IsPublic></PolicyStatus>")
    }
}

/// `<PublicAccessBlockConfiguration><BlockPublicAccess>true|false</BlockPublicAccess></…>`, on a bucket
/// (`/<bucket>?publicAccessBlock`) or on the account (`/?publicAccessBlock`). A bucket or account never configured
/// answers `false`.
struct PublicAccessBlockDocument: ConfigurationDocument {
    static let root = "PublicAccessBlockConfiguration"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <PublicAccessBlockConfiguration><BlockPublicAccess>false</BlockPublicAccess></PublicAccessBlockConfiguration>
        """
    static let accountName = "publicAccessBlock"

    var block: Bool?
    enum CodingKeys: String, CodingKey { case block = "BlockPublicAccess" }

    func check(_ context: ConfigurationCheck) {}

    /// Whether the bucket's or the account's block is on.
    static func blocks(_ bucket: String, store: ObjectStore) async -> Bool {
        for bytes in [try? await store.configuration(bucket, .publicAccessBlock), await store.accountConfiguration(accountName)] {
            if let bytes = bytes ?? nil, (try? parse(bytes))?.block == true { return true }
        }
        return false
    }
}

extension RequestHandler {
    static func accountPublicAccessBlockOperation(_ method: String) -> LocalOSSOperation? {
        switch method {
        case "PUT": return .putPublicAccessBlock
        case "GET": return .getPublicAccessBlock
        case "DELETE": return .deletePublicAccessBlock
        default: return nil
        }
    }

    /// PutPublicAccessBlock, GetPublicAccessBlock and DeletePublicAccessBlock: the account's block, stored beside
    /// the buckets.
    func accountPublicAccessBlock(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader)
        async throws -> ServerResponse
    {
        let name = PublicAccessBlockDocument.accountName
        switch operation {
        case .putPublicAccessBlock:
            let body = try await reader.collect(limit: 64 << 10)
            try verifyContentMD5(context, body: body)
            let document = try PublicAccessBlockDocument.parse(Array(body.readableBytesView))
            try await store.setAccountConfiguration(name, Array(try OSSXMLEncoder().encode(document, root: PublicAccessBlockDocument.root).utf8))
            return ServerResponse(status: .ok)
        case .getPublicAccessBlock:
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/xml")
            let bytes = await store.accountConfiguration(name) ?? Array(PublicAccessBlockDocument.unsetDocument.utf8)
            return ServerResponse(status: .ok, headers: headers, body: .buffer(ByteBuffer(bytes: bytes)))
        default:
            await store.removeAccountConfiguration(name)
            return ServerResponse(status: .noContent)
        }
    }
}
