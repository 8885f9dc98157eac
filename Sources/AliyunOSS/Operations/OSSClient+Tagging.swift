extension OSSClient {
    /// PutObjectTagging (`PUT /key?tagging`): replaces the object's tags (checked against OSS's limits first).
    @discardableResult
    public func putObjectTagging(_ request: OSSPutObjectTaggingRequest) async throws -> OSSEmptyResult {
        try await perform(request)
    }

    /// GetObjectTagging (`GET /key?tagging`).
    public func getObjectTagging(_ request: OSSGetObjectTaggingRequest) async throws -> OSSGetObjectTaggingResult {
        try await perform(
            OSSCall(
                OSSAPI("GetObjectTagging", "GET", subresource: "tagging"), bucket: request.bucketName,
                key: request.objectKey, versionId: request.versionId, as: OSSGetObjectTaggingResult.self))
    }

    /// DeleteObjectTagging (`DELETE /key?tagging`).
    @discardableResult
    public func deleteObjectTagging(_ request: OSSDeleteObjectTaggingRequest) async throws -> OSSEmptyResult {
        try await perform(
            OSSCall(
                OSSAPI("DeleteObjectTagging", "DELETE", subresource: "tagging"), bucket: request.bucketName,
                key: request.objectKey, versionId: request.versionId, as: OSSEmptyResult.self))
    }
}

extension OSSPutObjectTaggingRequest: OSSObjectOperation {
    typealias Result = OSSEmptyResult
    var api: OSSAPI { OSSAPI("PutObjectTagging", "PUT", subresource: "tagging") }
    static var parameters: [OSSParameter<Self>] { [.query("versionId", \.versionId)] }
    var body: OSSTaggingDocument? { OSSTaggingDocument(tags) }
    func validate() throws { try OSSObjectTagging.validate(tags) }
}

extension OSSGetObjectTaggingResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let document = try await response.xml(OSSTaggingDocument.self)
        let pairs = document.tagSet.tag.map { ($0.key, $0.value ?? "") }
        return Self(
            tags: Dictionary(pairs) { _, last in last }, versionId: response.headers["x-oss-version-id"],
            requestId: response.requestId)
    }
}

/// `<Tagging><TagSet><Tag><Key>…</Key><Value>…</Value></Tag>…</TagSet></Tagging>`.
struct OSSTaggingDocument: OSSXMLDocument, Codable {
    static let root = "Tagging"
    var tagSet: TagSet

    struct TagSet: Codable { var tag: [Tag] }

    struct Tag: Codable {
        var key: String
        var value: String?
    }

    /// The tags sorted by key, so a request's bytes (and Content-MD5) do not depend on dictionary order.
    init(_ tags: [String: String]) {
        tagSet = TagSet(tag: tags.sorted { $0.key < $1.key }.map { Tag(key: $0.key, value: $0.value) })
    }
}
