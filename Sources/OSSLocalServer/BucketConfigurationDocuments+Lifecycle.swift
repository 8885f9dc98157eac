import Foundation
import OSSSigning

/// The server's models of the lifecycle-and-cost families (lifecycle, request payment, transfer acceleration),
/// written from OSS's API reference with OSS's checks.

/// `<LifecycleConfiguration>`: 1 to 1000 `<Rule>`.
struct LifecycleDocument: ConfigurationDocument {
    static let root = "LifecycleConfiguration"
    static let maximumRules = 1000
    static let storageClasses: Set<String> = ["IA", "Archive", "ColdArchive", "DeepColdArchive"]

    var rules: [Rule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }

    struct Tag: Codable, Sendable {
        var key: String
        var value: String
        enum CodingKeys: String, CodingKey {
            case key = "Key"
            case value = "Value"
        }
    }

    /// A date or an age: `Days` or `CreatedBeforeDate` (midnight UTC).
    struct When: Codable, Sendable {
        var days: Int?
        var before: Date?
        var deleteMarker: Bool?
        enum CodingKeys: String, CodingKey {
            case days = "Days"
            case before = "CreatedBeforeDate"
            case deleteMarker = "ExpiredObjectDeleteMarker"
        }
    }

    struct Move: Codable, Sendable {
        var days: Int?
        var before: Date?
        var noncurrentDays: Int?
        var storageClass: String
        var accessTime: Bool?
        var returnToStandard: Bool?
        var smallFiles: Bool?
        enum CodingKeys: String, CodingKey {
            case days = "Days"
            case before = "CreatedBeforeDate"
            case noncurrentDays = "NoncurrentDays"
            case storageClass = "StorageClass"
            case accessTime = "IsAccessTime"
            case returnToStandard = "ReturnToStdWhenVisit"
            case smallFiles = "AllowSmallFile"
        }
    }

    struct Noncurrent: Codable, Sendable {
        var days: Int
        enum CodingKeys: String, CodingKey { case days = "NoncurrentDays" }
    }

    struct Filter: Codable, Sendable {
        var larger: Int64?
        var smaller: Int64?
        var excluded: [Excluded]
        enum CodingKeys: String, CodingKey {
            case larger = "ObjectSizeGreaterThan"
            case smaller = "ObjectSizeLessThan"
            case excluded = "Not"
        }
    }

    struct Excluded: Codable, Sendable {
        var prefix: String
        var tag: Tag?
        enum CodingKeys: String, CodingKey {
            case prefix = "Prefix"
            case tag = "Tag"
        }
    }

    struct Rule: Codable, Sendable {
        var id: String?
        var prefix: String?
        var status: String
        var expiration: When?
        var transitions: [Move]
        var abortUpload: When?
        var tags: [Tag]
        var noncurrentExpiration: Noncurrent?
        var noncurrentTransitions: [Move]
        var filter: Filter?
        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case prefix = "Prefix"
            case status = "Status"
            case expiration = "Expiration"
            case transitions = "Transition"
            case abortUpload = "AbortMultipartUpload"
            case tags = "Tag"
            case noncurrentExpiration = "NoncurrentVersionExpiration"
            case noncurrentTransitions = "NoncurrentVersionTransition"
            case filter = "Filter"
        }
    }

    func check(_ context: ConfigurationCheck) throws {
        guard !rules.isEmpty else { throw LocalOSSError.malformedXML("LifecycleConfiguration needs at least one Rule.") }
        guard rules.count <= Self.maximumRules else {
            throw LocalOSSError.invalidArgument("At most \(Self.maximumRules) lifecycle rules are allowed.", name: "Rule")
        }
        var ids = Set<String>()
        for rule in rules {
            if let id = rule.id {
                guard id.utf8.count <= 255 else { throw Self.invalid("A rule ID is at most 255 bytes.", "ID", id) }
                guard ids.insert(id).inserted else { throw Self.invalid("Rule IDs must be unique.", "ID", id) }
            }
            guard rule.status == "Enabled" || rule.status == "Disabled" else {
                throw LocalOSSError.malformedXML("Status is Enabled or Disabled, not \(rule.status.prefix(32)).")
            }
            guard rule.expiration != nil || !rule.transitions.isEmpty || rule.abortUpload != nil
                || rule.noncurrentExpiration != nil || !rule.noncurrentTransitions.isEmpty
            else {
                throw Self.invalid("A rule needs at least one action.", "Rule", rule.id ?? "")
            }
            if let expiration = rule.expiration {
                let set = [expiration.days != nil, expiration.before != nil, expiration.deleteMarker != nil].filter { $0 }
                guard set.count == 1 else {
                    throw Self.invalid(
                        "Expiration has exactly one of Days, CreatedBeforeDate and ExpiredObjectDeleteMarker.", "Expiration", "")
                }
                try Self.checkWhen(expiration, "Expiration")
            }
            if let abort = rule.abortUpload {
                guard (abort.days != nil) != (abort.before != nil), abort.deleteMarker == nil else {
                    throw Self.invalid("AbortMultipartUpload has exactly one of Days and CreatedBeforeDate.", "AbortMultipartUpload", "")
                }
                guard rule.tags.isEmpty else {
                    throw Self.invalid("A rule with tags cannot abort multipart uploads.", "Tag", "")
                }
                try Self.checkWhen(abort, "AbortMultipartUpload")
            }
            for move in rule.transitions {
                guard Self.storageClasses.contains(move.storageClass) else {
                    throw Self.invalid("Unsupported transition storage class.", "StorageClass", move.storageClass)
                }
                guard (move.days != nil) != (move.before != nil), move.noncurrentDays == nil else {
                    throw Self.invalid("Transition has exactly one of Days and CreatedBeforeDate.", "Transition", "")
                }
                try Self.checkWhen(When(days: move.days, before: move.before), "Transition")
                if let days = move.days, let expire = rule.expiration?.days, days >= expire {
                    throw Self.invalid("A transition must come before the expiration.", "Days", String(days))
                }
            }
            if let noncurrent = rule.noncurrentExpiration, noncurrent.days <= 0 {
                throw Self.invalid("NoncurrentDays must be positive.", "NoncurrentDays", String(noncurrent.days))
            }
            for move in rule.noncurrentTransitions {
                guard Self.storageClasses.contains(move.storageClass) else {
                    throw Self.invalid("Unsupported transition storage class.", "StorageClass", move.storageClass)
                }
                guard let days = move.noncurrentDays, days > 0, move.days == nil, move.before == nil else {
                    throw Self.invalid("NoncurrentVersionTransition needs a positive NoncurrentDays.", "NoncurrentDays", "")
                }
            }
            for tag in rule.tags where tag.key.isEmpty || tag.key.utf8.count > 128 || tag.value.utf8.count > 256 {
                throw LocalOSSError(400, "InvalidTag", "The TagKey or TagValue you have provided is invalid.")
            }
            if let filter = rule.filter {
                if let larger = filter.larger, larger < 0 { throw Self.invalid("Object sizes are not negative.", "ObjectSizeGreaterThan", String(larger)) }
                if let smaller = filter.smaller, smaller <= 0 { throw Self.invalid("ObjectSizeLessThan must be positive.", "ObjectSizeLessThan", String(smaller)) }
                if let larger = filter.larger, let smaller = filter.smaller, larger >= smaller {
                    throw Self.invalid("ObjectSizeGreaterThan must be less than ObjectSizeLessThan.", "ObjectSizeGreaterThan", String(larger))
                }
                for excluded in filter.excluded where !excluded.prefix.hasPrefix(rule.prefix ?? "") || excluded.prefix == (rule.prefix ?? "") && excluded.tag == nil {
                    throw Self.invalid("A Not prefix must lie inside the rule's prefix.", "Prefix", excluded.prefix)
                }
            }
        }
    }

    private static func checkWhen(_ when: When, _ name: String) throws(LocalOSSError) {
        if let days = when.days, days <= 0 { throw invalid("\(name) Days must be positive.", "Days", String(days)) }
        if let date = when.before, date.timeIntervalSince1970.truncatingRemainder(dividingBy: 86_400) != 0 {
            throw invalid("CreatedBeforeDate must be midnight UTC.", "CreatedBeforeDate", OSSDateFormat.iso8601Milliseconds(date))
        }
    }

    private static func invalid(_ message: String, _ name: String, _ value: String) -> LocalOSSError {
        .invalidArgument(message, name: name, value: value)
    }
}

/// `<RequestPaymentConfiguration><Payer>BucketOwner|Requester</Payer></…>`.
struct RequestPaymentDocument: ConfigurationDocument {
    static let root = "RequestPaymentConfiguration"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <RequestPaymentConfiguration><Payer>BucketOwner</Payer></RequestPaymentConfiguration>
        """

    var payer: String
    enum CodingKeys: String, CodingKey { case payer = "Payer" }

    func check(_ context: ConfigurationCheck) throws {
        guard payer == "BucketOwner" || payer == "Requester" else {
            throw LocalOSSError.invalidArgument("Payer is BucketOwner or Requester.", name: "Payer", value: payer)
        }
    }
}

/// `<TransferAccelerationConfiguration><Enabled>true|false</Enabled></…>`.
struct TransferAccelerationDocument: ConfigurationDocument {
    static let root = "TransferAccelerationConfiguration"
    var enabled: Bool
    enum CodingKeys: String, CodingKey { case enabled = "Enabled" }

    func check(_ context: ConfigurationCheck) {}
}
