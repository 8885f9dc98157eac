/// Governance families: bucket tags, default encryption, access logging.

/// `<Tagging>` on a bucket (PutBucketTags, `?tagging`): at most 20 tags. A bucket without tags answers an empty
/// tag set.
public struct OSSBucketTagging: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Tags", subresource: "tagging", root: "Tagging")
    public static let maximumTags = 20

    public var tagSet: TagSet

    public init(tags: [OSSTag]) {
        tagSet = TagSet(tags: tags)
    }

    /// The tags, in the order OSS returned them.
    public var tags: [OSSTag] {
        get { tagSet.tags }
        set { tagSet.tags = newValue }
    }

    /// `<TagSet>`: `<Tag>` elements.
    public struct TagSet: Codable, Sendable, Hashable {
        public var tags: [OSSTag]

        enum CodingKeys: String, CodingKey { case tags = "Tag" }
    }

    public func validate() throws {
        guard tags.count <= Self.maximumTags else {
            throw OSSClientError.invalidArgument("a bucket has at most \(Self.maximumTags) tags, not \(tags.count)")
        }
        for tag in tags where tag.key.isEmpty || tag.key.count > 64 || tag.value.count > 128 {
            throw OSSClientError.invalidArgument("InvalidTag: a bucket tag key is 1 to 64 characters, a value at most 128")
        }
    }
}

/// `<ServerSideEncryptionRule>` (PutBucketEncryption, `?encryption`): how new objects are encrypted when the
/// request does not say. A bucket never configured answers `NoSuchServerSideEncryptionRule`.
public struct OSSBucketEncryption: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Encryption", subresource: "encryption", root: "ServerSideEncryptionRule")

    public var applyServerSideEncryptionByDefault: ByDefault

    public init(_ byDefault: ByDefault) {
        applyServerSideEncryptionByDefault = byDefault
    }

    /// `<ApplyServerSideEncryptionByDefault>`.
    public struct ByDefault: Codable, Sendable, Hashable {
        /// `AES256`, `KMS` or `SM4`.
        public var sseAlgorithm: String
        /// `SM4` with `KMS` only; absent for AES256.
        public var kmsDataEncryption: String?
        /// The KMS key (with `KMS` only); absent means OSS's default key.
        public var kmsMasterKeyId: String?

        public init(sseAlgorithm: String, kmsDataEncryption: String? = nil, kmsMasterKeyId: String? = nil) {
            self.sseAlgorithm = sseAlgorithm
            self.kmsDataEncryption = kmsDataEncryption
            self.kmsMasterKeyId = kmsMasterKeyId
        }

        enum CodingKeys: String, CodingKey {
            case sseAlgorithm = "SSEAlgorithm"
            case kmsDataEncryption = "KMSDataEncryption"
            case kmsMasterKeyId = "KMSMasterKeyID"
        }
    }
}

/// `<BucketLoggingStatus>` (PutBucketLogging, `?logging`): where OSS writes the bucket's access logs. A bucket
/// without logging answers an empty status (``loggingEnabled`` `nil`).
public struct OSSBucketLogging: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Logging", subresource: "logging", root: "BucketLoggingStatus")

    public var loggingEnabled: LoggingEnabled?

    public init(loggingEnabled: LoggingEnabled?) {
        self.loggingEnabled = loggingEnabled
    }

    /// `<LoggingEnabled>`.
    public struct LoggingEnabled: Codable, Sendable, Hashable {
        /// The bucket the logs go to (same owner and region).
        public var targetBucket: String
        /// The key prefix of the log objects.
        public var targetPrefix: String?
        /// The RAM role OSS writes the logs as.
        public var loggingRole: String?

        public init(targetBucket: String, targetPrefix: String? = nil, loggingRole: String? = nil) {
            self.targetBucket = targetBucket
            self.targetPrefix = targetPrefix
            self.loggingRole = loggingRole
        }
    }
}
