import NIOCore
import NIOHTTP1
import OSSXML

/// ACLs: PutObjectACL/GetObjectACL/PutBucketACL/GetBucketACL, and what an anonymous (unsigned) request may do.
///
/// Who may do what (the ACLs among the bucket's other rules) is decided in RequestHandler+Authorization.swift: an
/// object's own ACL wins unless it is `default`, then the bucket's applies; `public-read` allows GET/HEAD and
/// listing, `public-read-write` also writes.
extension RequestHandler {
    static let objectACLs: Set<String> = ["private", "public-read", "public-read-write", "default"]
    static let bucketACLs: Set<String> = ["private", "public-read", "public-read-write"]

    /// Whether the request carries no signature at all (header or presigned query).
    func isAnonymous(_ context: RequestContext) -> Bool {
        context.header("authorization") == nil && context.query["x-oss-signature"] == nil
            && context.query["Signature"] == nil
    }

    /// Whether an anonymous caller may read `object` in `bucket` (the source of an anonymous copy).
    func anonymousCanRead(_ bucket: String, _ object: ObjectRecord) async -> Bool {
        var acl = (try? await store.bucket(bucket))?.acl ?? "private"
        if let own = object.extra?.acl, own != "default" { acl = own }
        return acl == "public-read" || acl == "public-read-write"
    }

    /// `x-oss-object-acl` checked, or `nil` when absent.
    func requestedObjectACL(_ context: RequestContext) throws(LocalOSSError) -> String? {
        guard let acl = context.header("x-oss-object-acl") else { return nil }
        guard Self.objectACLs.contains(acl) else {
            throw .invalidArgument("no such object access control exists", name: "x-oss-object-acl", value: acl)
        }
        return acl
    }

    func putObjectACL(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        guard let acl = try requestedObjectACL(context) else {
            throw LocalOSSError.invalidArgument("PutObjectACL needs the x-oss-object-acl header.", name: "x-oss-object-acl")
        }
        let updated = try await store.updateObject(bucket, key, versionId: try requestedVersionId(context)) { record in
            var extra = record.extra ?? ObjectExtra()
            extra.acl = acl == "default" ? nil : acl
            record.extra = extra.isEmpty ? nil : extra
        }
        var headers = HTTPHeaders()
        addVersionHeader(&headers, updated)
        return ServerResponse(status: .ok, headers: headers)
    }

    func getObjectACL(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let object = try await store.object(bucket, key, versionId: try requestedVersionId(context))
        var response = ServerResponse.xml(try accessControlPolicy(object.extra?.acl ?? "default"))
        addVersionHeader(&response.headers, object)
        return response
    }

    func putBucketACL(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        _ = try await reader.collect(limit: 64 << 10)
        guard let acl = context.header("x-oss-acl") else {
            throw LocalOSSError.invalidArgument("PutBucketACL needs the x-oss-acl header.", name: "x-oss-acl")
        }
        guard Self.bucketACLs.contains(acl) else {
            throw LocalOSSError.invalidArgument("no such bucket access control exists", name: "x-oss-acl", value: acl)
        }
        try await store.setBucketACL(bucket, acl)
        return ServerResponse(status: .ok)
    }

    func getBucketACL(_ context: RequestContext) async throws -> ServerResponse {
        let record = try await store.bucket(try requireBucket(context))
        return .xml(try accessControlPolicy(record.acl ?? "private"))
    }

    private func accessControlPolicy(_ grant: String) throws -> String {
        let policy = AccessControlPolicy(owner: .init(id: ownerId, displayName: ownerId), accessControlList: .init(grant: grant))
        return try OSSXMLEncoder().encode(policy, root: "AccessControlPolicy")
    }
}

/// `<AccessControlPolicy><Owner><ID/><DisplayName/></Owner><AccessControlList><Grant/></AccessControlList>`.
private struct AccessControlPolicy: Encodable {
    var owner: Owner
    var accessControlList: AccessControlList

    struct Owner: Encodable {
        var id: String
        var displayName: String
        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case displayName
        }
    }

    struct AccessControlList: Encodable { var grant: String }
}
