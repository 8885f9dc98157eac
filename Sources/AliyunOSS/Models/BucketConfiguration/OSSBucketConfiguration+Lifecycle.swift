#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lifecycle and cost families: lifecycle rules, request payment and transfer acceleration.

/// `<LifecycleConfiguration>` (PutBucketLifecycle, `?lifecycle`): rules that expire objects, move them to colder
/// storage classes and abort forgotten multipart uploads. A put replaces every rule.
public struct OSSLifecycleConfiguration: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "Lifecycle", subresource: "lifecycle", root: "LifecycleConfiguration")
    /// OSS keeps at most this many rules per bucket.
    public static let maximumRules = 1000

    public var rules: [OSSLifecycleRule]

    public init(rules: [OSSLifecycleRule]) {
        self.rules = rules
    }

    enum CodingKeys: String, CodingKey { case rules = "Rule" }

    public func validate() throws {
        guard !rules.isEmpty, rules.count <= Self.maximumRules else {
            throw OSSClientError.invalidArgument("a lifecycle configuration has 1 to \(Self.maximumRules) rules, not \(rules.count)")
        }
        for rule in rules where rule.status != .enabled && rule.status != .disabled {
            throw OSSClientError.invalidArgument("a lifecycle rule's status is Enabled or Disabled, not \(rule.status.rawValue)")
        }
    }
}

/// `Enabled` or `Disabled`.
public struct OSSRuleStatus: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let enabled = OSSRuleStatus(rawValue: "Enabled")
    public static let disabled = OSSRuleStatus(rawValue: "Disabled")
    public var description: String { rawValue }
}

/// `<Tag><Key>…</Key><Value>…</Value></Tag>` in lifecycle rules and bucket tags.
public struct OSSTag: Codable, Sendable, Hashable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// `<Rule>`: which objects (``prefix``, ``tags``, ``filter``) and what happens to them. A rule acts on current
/// versions after ``expiration`` and ``transitions``, on previous versions after the `noncurrentVersion*` actions.
public struct OSSLifecycleRule: Codable, Sendable, Hashable {
    /// At most 255 bytes; OSS makes one up when absent.
    public var id: String?
    /// The key prefix the rule applies to; empty or absent for the whole bucket.
    public var prefix: String?
    public var status: OSSRuleStatus
    public var expiration: Expiration?
    public var transitions: [Transition]
    public var abortMultipartUpload: AbortMultipartUpload?
    /// Objects must carry every one of these tags.
    public var tags: [OSSTag]
    public var noncurrentVersionExpiration: NoncurrentVersionExpiration?
    public var noncurrentVersionTransitions: [NoncurrentVersionTransition]
    public var filter: Filter?

    public init(
        id: String? = nil, prefix: String? = nil, status: OSSRuleStatus = .enabled, expiration: Expiration? = nil,
        transitions: [Transition] = [], abortMultipartUpload: AbortMultipartUpload? = nil, tags: [OSSTag] = [],
        noncurrentVersionExpiration: NoncurrentVersionExpiration? = nil,
        noncurrentVersionTransitions: [NoncurrentVersionTransition] = [], filter: Filter? = nil
    ) {
        self.id = id
        self.prefix = prefix
        self.status = status
        self.expiration = expiration
        self.transitions = transitions
        self.abortMultipartUpload = abortMultipartUpload
        self.tags = tags
        self.noncurrentVersionExpiration = noncurrentVersionExpiration
        self.noncurrentVersionTransitions = noncurrentVersionTransitions
        self.filter = filter
    }

    enum CodingKeys: String, CodingKey {
        case id = "ID"
        case prefix, status, expiration
        case transitions = "Transition"
        case abortMultipartUpload
        case tags = "Tag"
        case noncurrentVersionExpiration
        case noncurrentVersionTransitions = "NoncurrentVersionTransition"
        case filter
    }

    /// `<Expiration>`: one of ``days``, ``createdBeforeDate`` or ``expiredObjectDeleteMarker``.
    public struct Expiration: Codable, Sendable, Hashable {
        /// Days after the last modification.
        public var days: Int?
        /// Objects last modified before this date (midnight UTC).
        public var createdBeforeDate: Date?
        /// Removes delete markers that no longer hide any version (versioned buckets).
        public var expiredObjectDeleteMarker: Bool?

        public init(days: Int? = nil, createdBeforeDate: Date? = nil, expiredObjectDeleteMarker: Bool? = nil) {
            self.days = days
            self.createdBeforeDate = createdBeforeDate
            self.expiredObjectDeleteMarker = expiredObjectDeleteMarker
        }
    }

    /// `<Transition>`: a move to ``storageClass`` after ``days`` or before ``createdBeforeDate``.
    public struct Transition: Codable, Sendable, Hashable {
        public var days: Int?
        public var createdBeforeDate: Date?
        /// `IA`, `Archive`, `ColdArchive` or `DeepColdArchive`.
        public var storageClass: String
        /// Counts ``days`` from the last access instead of the last modification (needs access tracking).
        public var isAccessTime: Bool?
        public var returnToStdWhenVisit: Bool?
        public var allowSmallFile: Bool?

        public init(
            days: Int? = nil, createdBeforeDate: Date? = nil, storageClass: String, isAccessTime: Bool? = nil,
            returnToStdWhenVisit: Bool? = nil, allowSmallFile: Bool? = nil
        ) {
            self.days = days
            self.createdBeforeDate = createdBeforeDate
            self.storageClass = storageClass
            self.isAccessTime = isAccessTime
            self.returnToStdWhenVisit = returnToStdWhenVisit
            self.allowSmallFile = allowSmallFile
        }
    }

    /// `<AbortMultipartUpload>`: uploads initiated ``days`` ago or before ``createdBeforeDate`` are aborted.
    public struct AbortMultipartUpload: Codable, Sendable, Hashable {
        public var days: Int?
        public var createdBeforeDate: Date?

        public init(days: Int? = nil, createdBeforeDate: Date? = nil) {
            self.days = days
            self.createdBeforeDate = createdBeforeDate
        }
    }

    /// `<NoncurrentVersionExpiration>`: previous versions are removed ``noncurrentDays`` after they stop being
    /// current.
    public struct NoncurrentVersionExpiration: Codable, Sendable, Hashable {
        public var noncurrentDays: Int

        public init(noncurrentDays: Int) {
            self.noncurrentDays = noncurrentDays
        }
    }

    /// `<NoncurrentVersionTransition>`.
    public struct NoncurrentVersionTransition: Codable, Sendable, Hashable {
        public var noncurrentDays: Int
        public var storageClass: String
        public var isAccessTime: Bool?
        public var returnToStdWhenVisit: Bool?
        public var allowSmallFile: Bool?

        public init(
            noncurrentDays: Int, storageClass: String, isAccessTime: Bool? = nil, returnToStdWhenVisit: Bool? = nil,
            allowSmallFile: Bool? = nil
        ) {
            self.noncurrentDays = noncurrentDays
            self.storageClass = storageClass
            self.isAccessTime = isAccessTime
            self.returnToStdWhenVisit = returnToStdWhenVisit
            self.allowSmallFile = allowSmallFile
        }
    }

    /// `<Filter>`: objects excluded (``not``) or limited by size.
    public struct Filter: Codable, Sendable, Hashable {
        public var objectSizeGreaterThan: Int64?
        public var objectSizeLessThan: Int64?
        public var not: [Not]

        public init(objectSizeGreaterThan: Int64? = nil, objectSizeLessThan: Int64? = nil, not: [Not] = []) {
            self.objectSizeGreaterThan = objectSizeGreaterThan
            self.objectSizeLessThan = objectSizeLessThan
            self.not = not
        }

        /// `<Not>`: objects under ``prefix`` (and carrying ``tag``) are left alone.
        public struct Not: Codable, Sendable, Hashable {
            public var prefix: String
            public var tag: OSSTag?

            public init(prefix: String, tag: OSSTag? = nil) {
                self.prefix = prefix
                self.tag = tag
            }
        }
    }
}

/// `<RequestPaymentConfiguration>` (PutBucketRequestPayment, `?requestPayment`): who pays for requests and
/// traffic. OSS answers a bucket never configured with `BucketOwner`; there is no delete.
public struct OSSRequestPaymentConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(
        name: "RequestPayment", subresource: "requestPayment", root: "RequestPaymentConfiguration")

    /// `BucketOwner` or `Requester`.
    public var payer: String

    public init(payer: String) {
        self.payer = payer
    }

    public static let bucketOwner = "BucketOwner"
    public static let requester = "Requester"
}

/// `<TransferAccelerationConfiguration>` (PutBucketTransferAcceleration, `?transferAcceleration`). A bucket never
/// configured answers `NoSuchTransferAccelerationConfiguration`; there is no delete: put `enabled: false`.
public struct OSSTransferAccelerationConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(
        name: "TransferAcceleration", subresource: "transferAcceleration", root: "TransferAccelerationConfiguration")

    public var enabled: Bool

    public init(enabled: Bool) {
        self.enabled = enabled
    }
}
