/// A canned ACL (`x-oss-object-acl`, `x-oss-acl`). `default` (objects only) means the bucket's ACL applies.
public struct OSSACL: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let `private` = OSSACL(rawValue: "private")
    public static let publicRead = OSSACL(rawValue: "public-read")
    public static let publicReadWrite = OSSACL(rawValue: "public-read-write")
    /// Objects only: follow the bucket's ACL.
    public static let `default` = OSSACL(rawValue: "default")

    public var description: String { rawValue }
}

/// PutObjectACL (`PUT /key?acl`).
public struct OSSPutObjectACLRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var acl: OSSACL
    /// The version whose ACL is set; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, acl: OSSACL, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.acl = acl
        self.versionId = versionId
    }
}

/// GetObjectACL (`GET /key?acl`).
public struct OSSGetObjectACLRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The version whose ACL is read; `nil` is the current one.
    public var versionId: String?

    public init(bucketName: String, objectKey: String, versionId: String? = nil) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.versionId = versionId
    }
}

/// PutBucketACL (`PUT /?acl`).
public struct OSSPutBucketACLRequest: Sendable {
    public var bucketName: String
    /// `private`, `publicRead` or `publicReadWrite`.
    public var acl: OSSACL

    public init(bucketName: String, acl: OSSACL) {
        self.bucketName = bucketName
        self.acl = acl
    }
}

/// GetBucketACL (`GET /?acl`).
public struct OSSGetBucketACLRequest: Sendable {
    public var bucketName: String

    public init(bucketName: String) {
        self.bucketName = bucketName
    }
}

/// The result of GetObjectACL or GetBucketACL.
public struct OSSGetACLResult: Sendable {
    /// The `<Grant>`.
    public var grant: OSSACL
    public var ownerId: String?
    /// `x-oss-version-id` (GetObjectACL on a versioned bucket): the version whose ACL this is.
    public var versionId: String?
    public var requestId: String
}

/// The result of a call that returns nothing but its request id (PutObjectACL, PutBucketACL, tagging, ...).
public struct OSSEmptyResult: Sendable {
    public var statusCode: Int
    public var requestId: String
}
