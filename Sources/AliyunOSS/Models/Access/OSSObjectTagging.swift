/// Object tags and their limits: at most 10, keys of 1-128 characters, values of at most 256.
public enum OSSObjectTagging {
    public static let maximumTags = 10
    public static let maximumKeyLength = 128
    public static let maximumValueLength = 256

    /// Checks tags against the limits (`.invalidArgument`, before anything is sent).
    public static func validate(_ tags: [String: String]) throws {
        guard tags.count <= maximumTags else {
            throw OSSClientError.invalidArgument("an object has at most \(maximumTags) tags, not \(tags.count)")
        }
        for (key, value) in tags {
            guard OSSClient.isXMLSafe(key), OSSClient.isXMLSafe(value) else {
                throw OSSClientError.invalidArgument("InvalidTag: tags cannot contain control characters")
            }
            guard !key.isEmpty, key.count <= maximumKeyLength else {
                throw OSSClientError.invalidArgument("InvalidTag: a tag key must be 1 to \(maximumKeyLength) characters")
            }
            guard value.count <= maximumValueLength else {
                throw OSSClientError.invalidArgument("InvalidTag: a tag value must be at most \(maximumValueLength) characters")
            }
        }
    }

    /// The `x-oss-tagging` header value (`k1=v1&k2=v2`, URL-query encoded, sorted by key) for PutObject,
    /// InitiateMultipartUpload, CopyObject (with `x-oss-tagging-directive: Replace`) and resumable uploads.
    public static func headerValue(_ tags: [String: String]) throws -> String {
        try validate(tags)
        return OSSPercentEncoding.encodeQuery(tags)
    }
}

/// PutObjectTagging (`PUT /key?tagging`): replaces the object's tags.
public struct OSSPutObjectTaggingRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var tags: [String: String]
    /// The version whose tags are replaced; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, tags: [String: String], versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.tags = tags
        self.versionId = versionId
    }
}

/// GetObjectTagging (`GET /key?tagging`) and DeleteObjectTagging (`DELETE /key?tagging`).
public struct OSSObjectTaggingRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The version whose tags are read or removed; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.versionId = versionId
    }
}

public typealias OSSGetObjectTaggingRequest = OSSObjectTaggingRequest
public typealias OSSDeleteObjectTaggingRequest = OSSObjectTaggingRequest

/// The result of GetObjectTagging.
public struct OSSGetObjectTaggingResult: Sendable {
    public var tags: [String: String]
    /// `x-oss-version-id`: the version whose tags these are (versioned buckets).
    public var versionId: String?
    public var requestId: String
}
