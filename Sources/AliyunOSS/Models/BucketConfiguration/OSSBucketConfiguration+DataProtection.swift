#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Data-protection families: overwrite rules, and the bucket retention policy (WORM) that GetBucketWorm reports.
/// Default encryption (``OSSBucketEncryption``) and versioning have their own files.

/// `<OverwriteConfiguration>` (PutBucketOverwriteConfig, `?overwriteConfig`): rules that forbid overwriting existing
/// objects. A rule matches a write when every condition it has holds (key prefix, key suffix, requester among its
/// principals, every requester when it names none); a matched write is refused with `FileAlreadyExists`. OSS
/// applies the rules only to buckets that never had versioning. A put replaces every rule.
public struct OSSOverwriteConfiguration: OSSDeletableBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(
        name: "OverwriteConfig", subresource: "overwriteConfig", root: "OverwriteConfiguration")
    /// OSS keeps at most this many rules per bucket.
    public static let maximumRules = 100

    public var rules: [Rule]

    public init(rules: [Rule]) {
        self.rules = rules
    }

    enum CodingKeys: String, CodingKey { case rules = "Rule" }

    public func validate() throws {
        guard rules.count <= Self.maximumRules else {
            throw OSSClientError.invalidArgument("an overwrite configuration has at most \(Self.maximumRules) rules, not \(rules.count)")
        }
        for rule in rules {
            guard rule.action == Rule.forbid else {
                throw OSSClientError.invalidArgument("an overwrite rule's action is forbid, not \(rule.action.debugDescription)")
            }
            for value in [rule.prefix, rule.suffix].compactMap({ $0 }) where value.utf8.count > 1023 {
                throw OSSClientError.invalidArgument("an overwrite rule's prefix and suffix are at most 1023 bytes")
            }
        }
        let ids = rules.compactMap(\.id)
        guard Set(ids).count == ids.count else {
            throw OSSClientError.invalidArgument("overwrite rule IDs are unique")
        }
    }

    /// `<Rule>`.
    public struct Rule: Codable, Sendable, Hashable {
        /// The only action OSS has.
        public static let forbid = "forbid"

        /// Unique in the bucket; OSS makes up a UUID when absent.
        public var id: String?
        /// `forbid`.
        public var action: String
        /// At most 1023 bytes, taken literally (`*` is a character).
        public var prefix: String?
        public var suffix: String?
        /// Who may not overwrite (account, RAM user or role ids, `*`); `nil` or empty forbids everyone.
        public var principals: Principals?

        public init(
            id: String? = nil, action: String = Rule.forbid, prefix: String? = nil, suffix: String? = nil,
            principals: [String]? = nil
        ) {
            self.id = id
            self.action = action
            self.prefix = prefix
            self.suffix = suffix
            self.principals = principals.map(Principals.init)
        }

        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case action = "Action"
            case prefix = "Prefix"
            case suffix = "Suffix"
            case principals = "Principals"
        }
    }

    /// `<Principals>`: `<Principal>` elements.
    public struct Principals: Codable, Sendable, Hashable {
        public var principals: [String]

        public init(_ principals: [String] = []) {
            self.principals = principals
        }

        enum CodingKeys: String, CodingKey { case principals = "Principal" }
    }
}

/// `<WormConfiguration>`: a bucket's retention policy as GetBucketWorm reports it.
///
/// While the policy lives, an object younger than ``retentionPeriodInDays`` (counted from its last modification)
/// can be neither deleted nor overwritten (`FileImmutable`). A policy is ``State/inProgress`` for 24 hours after
/// InitiateBucketWorm and lapses unless CompleteBucketWorm locks it; a ``State/locked`` policy can only be extended.
/// A bucket with versioning cannot have one.
public struct OSSBucketWorm: Codable, Sendable, Hashable {
    /// OSS: 1 day to 70 years.
    public static let retentionDays = 1...25_550

    public var wormId: String
    public var state: State
    public var retentionPeriodInDays: Int
    public var creationDate: Date?
    /// When an InProgress policy lapses.
    public var expirationDate: Date?

    public init(
        wormId: String, state: State, retentionPeriodInDays: Int, creationDate: Date? = nil, expirationDate: Date? = nil
    ) {
        self.wormId = wormId
        self.state = state
        self.retentionPeriodInDays = retentionPeriodInDays
        self.creationDate = creationDate
        self.expirationDate = expirationDate
    }

    enum CodingKeys: String, CodingKey {
        case wormId = "WormId"
        case state = "State"
        case retentionPeriodInDays = "RetentionPeriodInDays"
        case creationDate = "CreationDate"
        case expirationDate = "ExpirationDate"
    }

    /// `InProgress` or `Locked`.
    public struct State: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let inProgress = State(rawValue: "InProgress")
        public static let locked = State(rawValue: "Locked")
        public var description: String { rawValue }
    }
}
