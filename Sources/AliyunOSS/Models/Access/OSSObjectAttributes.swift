/// Requests that create an object and so can set its ACL, storage class and tags (as `x-oss-object-acl`,
/// `x-oss-storage-class` and `x-oss-tagging` headers): PutObject, InitiateMultipartUpload, CopyObject,
/// AppendObject and resumable uploads.
public protocol OSSObjectAttributeSettable {
    /// The headers the attributes are written to.
    var attributeHeaders: [String: String] { get set }
}

extension OSSObjectAttributeSettable {
    /// `x-oss-object-acl`.
    public mutating func setACL(_ acl: OSSACL) {
        attributeHeaders["x-oss-object-acl"] = acl.rawValue
    }

    /// `x-oss-storage-class`.
    public mutating func setStorageClass(_ storageClass: OSSStorageClass) {
        attributeHeaders["x-oss-storage-class"] = storageClass.rawValue
    }

    /// `x-oss-tagging`, checked against OSS's limits (`.invalidArgument`).
    public mutating func setTags(_ tags: [String: String]) throws {
        attributeHeaders["x-oss-tagging"] = try OSSObjectTagging.headerValue(tags)
    }
}

extension OSSPutObjectRequest: OSSObjectAttributeSettable {
    public var attributeHeaders: [String: String] {
        get { headers }
        set { headers = newValue }
    }
}

extension OSSInitiateMultipartUploadRequest: OSSObjectAttributeSettable {
    public var attributeHeaders: [String: String] {
        get { headers }
        set { headers = newValue }
    }
}

extension OSSCopyObjectRequest: OSSObjectAttributeSettable {
    public var attributeHeaders: [String: String] {
        get { headers }
        set { headers = newValue }
    }

    /// Replaces the copy's tags instead of copying the source's (`x-oss-tagging-directive: Replace`).
    public mutating func replaceTags(_ tags: [String: String]) throws {
        try setTags(tags)
        headers["x-oss-tagging-directive"] = "Replace"
    }
}

extension OSSAppendObjectRequest: OSSObjectAttributeSettable {
    public var attributeHeaders: [String: String] {
        get { headers }
        set { headers = newValue }
    }
}

extension OSSResumableUploadRequest: OSSObjectAttributeSettable {
    /// The resumable upload sends these with InitiateMultipartUpload (``completeMetaHeader``).
    public var attributeHeaders: [String: String] {
        get { completeMetaHeader }
        set { completeMetaHeader = newValue }
    }
}
