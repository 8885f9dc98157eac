import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

/// Object tagging: PutObjectTagging/GetObjectTagging/DeleteObjectTagging and the `x-oss-tagging` header.
extension RequestHandler {
    static let maximumTags = 10
    static let maximumTagKeyLength = 128
    static let maximumTagValueLength = 256

    /// Checks a tag set against OSS's limits: at most 10 tags, unique keys of 1-128 characters, values of at
    /// most 256, made of letters, digits, spaces and `+ - = . _ : / @`.
    static func validateTags(_ tags: [ObjectExtra.Tag]) throws(LocalOSSError) {
        guard tags.count <= maximumTags else {
            throw LocalOSSError(400, "BadRequest", "The number of tags exceeds the limit of \(maximumTags).")
        }
        var seen = Set<String>()
        for tag in tags {
            guard !tag.key.isEmpty, tag.key.count <= maximumTagKeyLength, isTagText(tag.key) else {
                throw invalidTag("The TagKey you have provided is invalid.", tag.key)
            }
            guard tag.value.count <= maximumTagValueLength, isTagText(tag.value) else {
                throw invalidTag("The TagValue you have provided is invalid.", tag.value)
            }
            guard seen.insert(tag.key).inserted else {
                throw invalidTag("Cannot provide multiple Tags with the same key.", tag.key)
            }
        }
    }

    private static func isTagText(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { s in
            s.properties.isAlphabetic || s.properties.numericType != nil || " +-=._:/@".unicodeScalars.contains(s)
        }
    }

    private static func invalidTag(_ message: String, _ text: String) -> LocalOSSError {
        LocalOSSError(400, "InvalidTag", message, fields: [("Tag", String(text.prefix(64)))])
    }

    /// Parses `x-oss-tagging` (`k1=v1&k2=v2`, URL-query encoded), or `nil` when absent.
    func requestedTags(_ context: RequestContext) throws(LocalOSSError) -> [ObjectExtra.Tag]? {
        guard let header = context.header("x-oss-tagging") else { return nil }
        var tags: [ObjectExtra.Tag] = []
        for item in header.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = OSSPercentEncoding.decode(pair[0], plusAsSpace: true),
                let value = OSSPercentEncoding.decode(pair.count > 1 ? pair[1] : "", plusAsSpace: true)
            else {
                throw .invalidArgument("x-oss-tagging is not valid URL-query encoding.", name: "x-oss-tagging")
            }
            tags.append(ObjectExtra.Tag(key: key, value: value))
        }
        try Self.validateTags(tags)
        return tags
    }

    func putObjectTagging(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let body = try await reader.collect(limit: 64 << 10)
        try verifyContentMD5(context, body: body)
        let document: TaggingDocument
        do { document = try OSSXMLDecoder().decode(TaggingDocument.self, from: body.readableBytesView, root: "Tagging") } catch {
            throw LocalOSSError.malformedXML("\(error)")
        }
        let tags = (document.tagSet?.tag ?? []).map { ObjectExtra.Tag(key: $0.key, value: $0.value ?? "") }
        try Self.validateTags(tags)
        let chosen = tags
        let updated = try await store.updateObject(bucket, key, versionId: try requestedVersionId(context)) { record in
            var extra = record.extra ?? ObjectExtra()
            extra.tags = chosen.isEmpty ? nil : chosen
            record.extra = extra.isEmpty ? nil : extra
        }
        var headers = HTTPHeaders()
        addVersionHeader(&headers, updated)
        return ServerResponse(status: .ok, headers: headers)
    }

    func getObjectTagging(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let object = try await store.object(bucket, key, versionId: try requestedVersionId(context))
        let tags = (object.extra?.tags ?? []).map { TaggingDocument.Tag(key: $0.key, value: $0.value) }
        var response = ServerResponse.xml(
            try OSSXMLEncoder().encode(TaggingDocument(tagSet: .init(tag: tags)), root: "Tagging"))
        addVersionHeader(&response.headers, object)
        return response
    }

    func deleteObjectTagging(_ context: RequestContext) async throws -> ServerResponse {
        let (bucket, key) = try requireBucketAndKey(context)
        let updated = try await store.updateObject(bucket, key, versionId: try requestedVersionId(context)) { record in
            guard var extra = record.extra else { return }
            extra.tags = nil
            record.extra = extra.isEmpty ? nil : extra
        }
        var headers = HTTPHeaders()
        addVersionHeader(&headers, updated)
        return ServerResponse(status: .noContent, headers: headers)
    }
}

/// `<Tagging><TagSet><Tag><Key>…</Key><Value>…</Value></Tag>…</TagSet></Tagging>`, as OSS documents it (the
/// server's own model: the official clients judge it, not the SDK's).
private struct TaggingDocument: Codable {
    var tagSet: TagSet?

    struct TagSet: Codable { var tag: [Tag] }

    struct Tag: Codable {
        var key: String
        var value: String?
    }
}
