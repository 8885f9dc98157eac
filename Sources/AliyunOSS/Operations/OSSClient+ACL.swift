extension OSSClient {
    /// PutObjectACL (`PUT /key?acl` with `x-oss-object-acl`).
    @discardableResult
    public func putObjectACL(_ request: OSSPutObjectACLRequest) async throws -> OSSEmptyResult {
        try await perform(request)
    }

    /// GetObjectACL (`GET /key?acl`): `default` means the bucket's ACL applies.
    public func getObjectACL(_ request: OSSGetObjectACLRequest) async throws -> OSSGetACLResult {
        try await perform(request)
    }

    /// PutBucketACL (`PUT /?acl` with `x-oss-acl`).
    @discardableResult
    public func putBucketACL(_ request: OSSPutBucketACLRequest) async throws -> OSSEmptyResult {
        try await perform(request)
    }

    /// GetBucketACL (`GET /?acl`).
    public func getBucketACL(_ request: OSSGetBucketACLRequest) async throws -> OSSGetACLResult {
        try await perform(request)
    }
}

extension OSSPutObjectACLRequest: OSSObjectOperation {
    typealias Result = OSSEmptyResult
    var api: OSSAPI { OSSAPI("PutObjectACL", "PUT", subresource: "acl") }
    static var parameters: [OSSParameter<Self>] {
        [.header("x-oss-object-acl", \.acl), .query("versionId", \.versionId)]
    }
}

extension OSSGetObjectACLRequest: OSSObjectOperation {
    typealias Result = OSSGetACLResult
    var api: OSSAPI { OSSAPI("GetObjectACL", "GET", subresource: "acl") }
    static var parameters: [OSSParameter<Self>] { [.query("versionId", \.versionId)] }
}

extension OSSPutBucketACLRequest: OSSBucketOperation {
    typealias Result = OSSEmptyResult
    var api: OSSAPI { OSSAPI("PutBucketACL", "PUT", subresource: "acl") }
    static var parameters: [OSSParameter<Self>] { [.header("x-oss-acl", \.acl)] }

    func validate() throws {
        guard acl != .default else {
            throw OSSClientError.invalidArgument("a bucket ACL is private, public-read or public-read-write, not default")
        }
    }
}

extension OSSGetBucketACLRequest: OSSBucketOperation {
    typealias Result = OSSGetACLResult
    var api: OSSAPI { OSSAPI("GetBucketACL", "GET", subresource: "acl") }
}

extension OSSGetACLResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let policy = try await response.xml(OSSAccessControlPolicy.self)
        return Self(
            grant: OSSACL(rawValue: policy.accessControlList.grant), ownerId: policy.owner?.id,
            versionId: response.headers["x-oss-version-id"], requestId: response.requestId)
    }
}

/// `<AccessControlPolicy><Owner><ID>…</ID></Owner><AccessControlList><Grant>…</Grant></AccessControlList>…`
/// (GetBucketAcl, GetObjectAcl; GetBucketInfo's `<Bucket>` holds the same two elements).
struct OSSAccessControlPolicy: OSSXMLDocument, Codable {
    static let root = "AccessControlPolicy"
    var owner: OSSOwnerElement?
    var accessControlList: OSSAccessControlListElement
}

/// `<Owner><ID>…</ID><DisplayName>…</DisplayName></Owner>`.
struct OSSOwnerElement: Codable {
    var id: String?
    var displayName: String?

    enum CodingKeys: String, CodingKey {
        case id = "ID"
        case displayName
    }
}

/// `<AccessControlList><Grant>…</Grant></AccessControlList>`.
struct OSSAccessControlListElement: Codable { var grant: String }
