import Foundation
import OSSXML

/// The server's models of the data-protection families (bucket WORM, overwrite rules), written from OSS's API
/// reference (InitiateBucketWorm, CompleteBucketWorm, ExtendBucketWorm, AbortBucketWorm, GetBucketWorm,
/// PutBucketOverwriteConfig) and the element names alibabacloud-oss-v2 reads.

/// A bucket's retention policy (`<WormConfiguration>`), stored as GetBucketWorm answers it.
///
/// As OSS: a policy starts `InProgress` and lapses 24 hours later unless CompleteBucketWorm locks it; while it
/// lives (InProgress or Locked) an object younger than the retention period can be neither deleted nor overwritten
/// (`FileImmutable`); a locked policy can only be extended, never shortened or aborted.
struct WormDocument: Codable, Sendable {
    static let root = "WormConfiguration"
    /// OSS: 1 day to 70 years.
    static let days = 1...25_550
    /// How long an unlocked policy lives.
    static let inProgressLifetime: TimeInterval = 86_400
    static let inProgress = "InProgress"
    static let locked = "Locked"

    var id: String
    var state: String
    var retentionDays: Int
    var created: Date
    /// When an InProgress policy lapses; absent once locked.
    var expires: Date?

    enum CodingKeys: String, CodingKey {
        case id = "WormId"
        case state = "State"
        case retentionDays = "RetentionPeriodInDays"
        case created = "CreationDate"
        case expires = "ExpirationDate"
    }

    init(id: String, retentionDays: Int, created: Date) {
        self.id = id
        self.state = Self.inProgress
        self.retentionDays = retentionDays
        self.created = created
        self.expires = created.addingTimeInterval(Self.inProgressLifetime)
    }

    var isLocked: Bool { state == Self.locked }

    /// Whether the policy still exists at `now` (an unlocked one lapses after 24 hours).
    func isLive(at now: Date) -> Bool {
        isLocked || now.timeIntervalSince(created) < Self.inProgressLifetime
    }

    /// Whether `object` is still within the retention period at `now`: its age, counted from its last
    /// modification, is under the retention days.
    func protects(_ object: ObjectRecord, at now: Date) -> Bool {
        isLive(at: now) && now.timeIntervalSince1970 < Double(object.lastModified) + Double(retentionDays) * 86_400
    }

    static func noSuchPolicy(_ bucket: String) -> LocalOSSError {
        LocalOSSError(404, "NoSuchWORMConfiguration", "The WORM Configuration does not exist.", fields: [("BucketName", bucket)])
    }

    static func immutable(_ key: String) -> LocalOSSError {
        LocalOSSError(
            409, "FileImmutable", "The object is protected by the bucket's retention policy and cannot be deleted or overwritten.",
            fields: [("ObjectName", String(key.prefix(256)))])
    }

    /// The body of InitiateBucketWorm or ExtendBucketWorm: `<root><RetentionPeriodInDays>n</…></root>`, n in 1...25550.
    static func requestedDays(_ body: some Collection<UInt8>, root: String) throws(LocalOSSError) -> Int {
        let node: OSSXMLNode
        do { node = try OSSXMLParser.parse(body, root: root) } catch { throw .malformedXML("\(error)") }
        guard let text = node.string("RetentionPeriodInDays") else {
            throw .malformedXML("\(root) needs RetentionPeriodInDays.")
        }
        guard let days = Int(text), Self.days.contains(days) else {
            throw .invalidArgument(
                "RetentionPeriodInDays is 1 to 25550.", name: "RetentionPeriodInDays", value: String(text.prefix(32)))
        }
        return days
    }
}

/// `<OverwriteConfiguration>`: up to 100 rules, each forbidding overwrites of the keys it matches (prefix and
/// suffix, both optional) by the principals it names (all when none). OSS gives a rule without `ID` a UUID.
struct OverwriteDocument: ConfigurationDocument {
    static let root = "OverwriteConfiguration"
    static let maximumRules = 100

    var rules: [Rule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }

    struct Rule: Codable, Sendable {
        var id: String
        var action: String
        var prefix: String?
        var suffix: String?
        var principals: Principals?
        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case action = "Action"
            case prefix = "Prefix"
            case suffix = "Suffix"
            case principals = "Principals"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let id = try c.decodeIfPresent(String.self, forKey: .id) ?? ""
            self.id = id.isEmpty ? UUID().uuidString.lowercased() : id
            action = try c.decode(String.self, forKey: .action)
            prefix = try c.decodeIfPresent(String.self, forKey: .prefix)
            suffix = try c.decodeIfPresent(String.self, forKey: .suffix)
            principals = try c.decodeIfPresent(Principals.self, forKey: .principals)
        }

        /// Whether the rule forbids `principal` to overwrite `key`: every condition it has holds.
        func forbids(_ key: String, by principal: String?) -> Bool {
            if let prefix, !key.utf8.starts(with: prefix.utf8) { return false }
            if let suffix, !key.utf8.reversed().starts(with: suffix.utf8.reversed()) { return false }
            let named = principals?.principals ?? []
            return named.isEmpty || named.contains("*") || principal.map(named.contains) == true
        }
    }

    struct Principals: Codable, Sendable {
        var principals: [String]
        enum CodingKeys: String, CodingKey { case principals = "Principal" }
    }

    func check(_ context: ConfigurationCheck) throws {
        guard rules.count <= Self.maximumRules else {
            throw LocalOSSError.invalidArgument("At most \(Self.maximumRules) overwrite rules are allowed.", name: "Rule")
        }
        var ids = Set<String>()
        for rule in rules {
            guard ids.insert(rule.id).inserted else {
                throw LocalOSSError.invalidArgument("Rule IDs must be unique.", name: "ID", value: rule.id)
            }
            guard rule.action == "forbid" else {
                throw LocalOSSError.invalidArgument("The only Action is forbid.", name: "Action", value: String(rule.action.prefix(32)))
            }
            for (name, value) in [("Prefix", rule.prefix), ("Suffix", rule.suffix)] {
                if let value, value.utf8.count > Router.maximumKeyLength {
                    throw LocalOSSError.invalidArgument("\(name) is at most 1023 bytes.", name: name)
                }
            }
        }
    }
}
