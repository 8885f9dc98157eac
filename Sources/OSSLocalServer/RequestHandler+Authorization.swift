import NIOHTTP1

import Foundation

/// Who a request acts as.
enum Caller: Sendable, Equatable {
    /// No signature at all.
    case anonymous
    /// The owner's keys or STS credentials.
    case owner
    /// A configured ``LocalOSSUser``.
    case user(LocalOSSUser)

    /// The owner or a RAM user of the owner's account: ACLs do not limit them, only a policy's Deny does.
    var isSameAccount: Bool {
        switch self {
        case .anonymous: return false
        case .owner: return true
        case .user(let user): return user.sameAccount
        }
    }

    func principal(ownerId: String) -> BucketPolicy.Principal {
        switch self {
        case .anonymous: return .anonymous
        case .owner: return .user(uid: ownerId, isBucketOwner: true)
        case .user(let user): return .user(uid: user.uid, isBucketOwner: false)
        }
    }
}

/// Access control for every request, in OSS's order: the signature (RequestAuthenticator), the referer rules (for
/// anonymous and presigned requests only), request payment, the bucket policy (an explicit Deny wins; an Allow
/// grants what the ACL would not), then the ACLs. A public access block (the bucket's or the account's) makes the
/// public grants of ACLs and policies count for nothing and refuses new ones.
///
/// The same check guards every path to an object's bytes: a copy's source and a symlink's target are checked as
/// `oss:GetObject` of that object by the same caller.
extension RequestHandler {
    /// Authenticates a signed request and checks any request against the bucket's access rules; returns the caller.
    func authorize(_ operation: LocalOSSOperation, context: RequestContext) async throws -> Caller {
        if operation == .optionObject { return .anonymous }  // a CORS preflight is never signed; the rules decide
        if operation == .postObject { return .anonymous }  // its form fields are its signature (RequestHandler+PostObject)
        let caller = isAnonymous(context) ? Caller.anonymous : try authenticator.authenticate(context)
        guard let bucket = context.bucket else {
            // ListBuckets and the account's public access block: signed requests only, the latter by the account.
            guard caller != .anonymous else { throw Self.aclDenied }
            if Self.accountOperations.contains(operation), !caller.isSameAccount {
                throw LocalOSSError.accessDenied("You have no right to access the account's configuration.")
            }
            return caller
        }
        guard let record = try? await store.bucket(bucket) else {
            if caller == .anonymous { throw Self.aclDenied }
            return caller  // the handler answers NoSuchBucket
        }
        let rules = await accessRules(bucket)
        if caller == .anonymous || isPresigned(context) {
            try Self.checkReferer(rules.referer, context.header("referer"))
        }
        if rules.requesterPays, !caller.isSameAccount {
            // Requester-pays: the requester must be known and must say it pays.
            guard caller != .anonymous else {
                throw LocalOSSError.accessDenied("Anonymous access is forbidden for this operation: the bucket is requester-pays.")
            }
            guard context.header("x-oss-request-payer")?.lowercased() == "requester" else {
                throw LocalOSSError.accessDenied(
                    "The bucket is requester-pays: the request must carry x-oss-request-payer: requester.")
            }
        }
        if rules.blocksPublicAccess { try Self.refusePublicACL(operation, context: context) }
        let key = Self.objectOperations.contains(operation) ? context.key : nil
        try await requireAccess(
            caller, action: Self.policyAction(operation), bucket: bucket, key: key, bucketACL: record.acl, rules: rules,
            context: context, exemptOwner: Self.policyOperations.contains(operation))
        return caller
    }

    /// Checks `caller` may do `action` on `bucket`/`key`; `object` is the object whose own ACL counts (looked up
    /// when needed and not given).
    func requireAccess(
        _ caller: Caller, action: String, bucket: String, key: String?, object: ObjectRecord? = nil,
        bucketACL: String?, rules: AccessRules, context: RequestContext, exemptOwner: Bool = false
    ) async throws {
        var facts = BucketPolicy.Facts(
            action: action, resource: resourceName(bucket: bucket, key: key), principal: caller.principal(ownerId: ownerId),
            sourceIp: context.sourceIp, secureTransport: false)
        if action == "oss:ListObjects" { facts.prefix = context.query["prefix"] }
        let decision: BucketPolicy.Decision =
            (exemptOwner && caller == .owner) ? .noOpinion : (rules.policy?.evaluate(facts) ?? .noOpinion)
        if decision == .deny {
            throw LocalOSSError.accessDenied("You have no right to access this object because of bucket policy.")
        }
        if caller.isSameAccount || decision == .allow { return }
        if !rules.blocksPublicAccess {
            var acl = bucketACL ?? "private"
            if let key {
                let versionId = context.query["versionId"].flatMap { $0.isEmpty ? nil : $0 }
                var own = object
                if own == nil { own = try? await store.object(bucket, key, versionId: versionId) }
                if let objectACL = own?.extra?.acl, objectACL != "default" { acl = objectACL }
            }
            if Self.aclGrants(acl, action: action) { return }
        }
        throw Self.aclDenied
    }

    /// Checks the caller may do `action` on an object the request reaches besides its own key: the source of a
    /// copy or the target of a symlink (`oss:GetObject`), each key of a DeleteMultipleObjects (`oss:DeleteObject`).
    func requireObjectAccess(
        _ action: String, _ bucket: String, _ key: String, object: ObjectRecord? = nil, context: RequestContext
    ) async throws {
        let record = try await store.bucket(bucket)
        try await requireAccess(
            context.caller, action: action, bucket: bucket, key: key, object: object, bucketACL: record.acl,
            rules: await accessRules(bucket), context: context)
    }

    /// `acs:oss:<region>:<owner>:<bucket>[/<key>]`, what a policy's `Resource` is matched against.
    func resourceName(bucket: String, key: String?) -> String {
        "acs:oss:\(configuration.region):\(ownerId):\(bucket)" + (key.map { "/" + $0 } ?? "")
    }

    /// Whether the request is signed in its URL (presigned), not in an Authorization header.
    func isPresigned(_ context: RequestContext) -> Bool {
        context.header("authorization") == nil
            && (context.query["x-oss-signature"] != nil || context.query["Signature"] != nil)
    }

    static let aclDenied = LocalOSSError.accessDenied("You have no right to access this object because of bucket acl.")

    /// What a public ACL grants to anyone: reads with public-read, also writes with public-read-write.
    static func aclGrants(_ acl: String, action: String) -> Bool {
        switch action {
        case "oss:GetObject", "oss:ListObjects":
            return acl == "public-read" || acl == "public-read-write"
        case "oss:PutObject", "oss:DeleteObject":
            return acl == "public-read-write"
        default:
            return false
        }
    }

    /// The RAM action OSS checks for an operation (HeadObject and GetObjectMeta need `oss:GetObject`, the steps of
    /// a multipart upload, appends, copies and symlinks `oss:PutObject`).
    static func policyAction(_ operation: LocalOSSOperation) -> String {
        switch operation {
        case .getObject, .headObject, .getObjectMeta, .getSymlink: return "oss:GetObject"
        case .putObject, .appendObject, .copyObject, .uploadPartCopy, .initiateMultipartUpload, .uploadPart,
            .completeMultipartUpload, .putSymlink:
            return "oss:PutObject"
        case .listObjects, .listObjectsV2: return "oss:ListObjects"
        case .deleteMultipleObjects: return "oss:DeleteObject"
        default: return "oss:" + operation.rawValue
        }
    }

    /// Operations on an object (their resource is `bucket/key`); the others are on the bucket.
    static let objectOperations: Set<LocalOSSOperation> = [
        .putObject, .getObject, .headObject, .getObjectMeta, .deleteObject, .initiateMultipartUpload, .uploadPart,
        .listParts, .completeMultipartUpload, .abortMultipartUpload, .copyObject, .uploadPartCopy, .appendObject,
        .putObjectACL, .getObjectACL, .putObjectTagging, .getObjectTagging, .deleteObjectTagging, .putSymlink,
        .getSymlink, .restoreObject, .processObject,
        .putObjectRetention, .getObjectRetention, .putObjectLegalHold, .getObjectLegalHold,
    ]

    /// The policy's own calls: the owner keeps them whatever the policy says, so a policy cannot lock it out.
    static let policyOperations: Set<LocalOSSOperation> = [.putBucketPolicy, .getBucketPolicy, .deleteBucketPolicy]

    /// The account-level calls (no bucket).
    static let accountOperations: Set<LocalOSSOperation> = [
        .putPublicAccessBlock, .getPublicAccessBlock, .deletePublicAccessBlock,
    ]
}

// MARK: - The bucket's rules

/// What a bucket's stored configuration says about access, read once per request.
struct AccessRules: Sendable {
    var policy: BucketPolicy?
    var referer: RefererDocument?
    var requesterPays = false
    /// The bucket's or the account's public access block is on.
    var blocksPublicAccess = false
}

extension RequestHandler {
    func accessRules(_ bucket: String) async -> AccessRules {
        var rules = AccessRules()
        if let bytes = try? await store.configuration(bucket, .policy) {
            rules.policy = try? BucketPolicy(json: bytes)
        }
        rules.referer = await storedConfiguration(RefererDocument.self, .referer, bucket: bucket)
        rules.requesterPays =
            await storedConfiguration(RequestPaymentDocument.self, .requestPayment, bucket: bucket)?.payer == "Requester"
        rules.blocksPublicAccess = await PublicAccessBlockDocument.blocks(bucket, store: store)
        if rules.blocksPublicAccess { rules.policy = rules.policy?.withoutPublicStatements }
        return rules
    }

    /// Under a public access block, a request that would set a public ACL is refused.
    static func refusePublicACL(_ operation: LocalOSSOperation, context: RequestContext) throws(LocalOSSError) {
        let header = operation == .putBucketACL || operation == .putBucket ? "x-oss-acl" : "x-oss-object-acl"
        guard let acl = context.header(header), acl == "public-read" || acl == "public-read-write" else { return }
        throw LocalOSSError.accessDenied("Public access is blocked: a public ACL cannot be set while the public access block is on.")
    }
}

// MARK: - Referer

extension RequestHandler {
    /// OSS's hotlink protection, in its order: an empty Referer passes if allowed (or if there is no whitelist);
    /// a blacklisted one is refused; then it must match the whitelist (when there is one). A pattern matches a
    /// Referer that starts with it, case-insensitively, `*` standing for any characters and `?` for one. With
    /// `AllowTruncateQueryString` (the default) the query string is ignored, with `TruncatePath` the path too.
    static func checkReferer(_ rules: RefererDocument?, _ referer: String?) throws(LocalOSSError) {
        guard let rules else { return }
        let whitelist = rules.allowed.items
        let blacklist = rules.blocked?.items ?? []
        let denied = LocalOSSError.accessDenied("You are denied by bucket referer policy.")
        guard let referer, !referer.isEmpty else {
            if rules.allowEmpty || whitelist.isEmpty { return }
            throw denied
        }
        var value = referer
        if rules.truncateQuery ?? true, let q = value.firstIndex(of: "?") { value = String(value[..<q]) }
        if rules.truncatePath == true, let scheme = value.range(of: "://"),
            let slash = value[scheme.upperBound...].firstIndex(of: "/")
        {
            value = String(value[..<slash])
        }
        func matches(_ pattern: String) -> Bool {
            BucketPolicy.wildcardMatch(pattern + "*", value, caseInsensitive: true)
        }
        if blacklist.contains(where: matches) { throw denied }
        if !whitelist.isEmpty, !whitelist.contains(where: matches) { throw denied }
    }
}
