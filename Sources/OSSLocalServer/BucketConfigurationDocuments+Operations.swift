import Foundation
import OSSXML

/// The server's models of the operations families whose effect lives outside OSS's data path (HTTPS config,
/// access monitor, archive direct read, resource group, inventory, image styles, replication): stored, checked as
/// OSS checks them and returned. Written from OSS's API reference, not shared with the SDK.

extension BucketConfigurationFamily {
    static let httpsConfig = Self(
        HTTPSConfigDocument.self, "httpsConfig", put: .putBucketHttpsConfig, get: .getBucketHttpsConfig, delete: nil,
        unset: .document(HTTPSConfigDocument.unsetDocument))
    static let accessMonitor = Self(
        AccessMonitorDocument.self, "accessmonitor", put: .putBucketAccessMonitor, get: .getBucketAccessMonitor,
        delete: nil, unset: .document(AccessMonitorDocument.unsetDocument))
    static let archiveDirectRead = Self(
        ArchiveDirectReadDocument.self, "bucketArchiveDirectRead", put: .putBucketArchiveDirectRead,
        get: .getBucketArchiveDirectRead, delete: nil, unset: .document(ArchiveDirectReadDocument.unsetDocument))
    static let resourceGroup = Self(
        ResourceGroupDocument.self, "resourceGroup", put: .putBucketResourceGroup, get: .getBucketResourceGroup,
        delete: nil, unset: .document(ResourceGroupDocument.unsetDocument))
}

/// `<HttpsConfiguration>`: the TLS versions a bucket's HTTPS endpoint accepts and its cipher suites. With TLS
/// enabled at least one `TLSVersion` of TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3 is named; a custom cipher suite list is
/// given only when the strong suites are not chosen. A bucket never configured answers TLS disabled.
struct HTTPSConfigDocument: ConfigurationDocument {
    static let root = "HttpsConfiguration"
    static let versions: Set<String> = ["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"]
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <HttpsConfiguration><TLS><Enable>false</Enable></TLS></HttpsConfiguration>
        """

    var tls: TLS
    var cipherSuite: CipherSuite?
    enum CodingKeys: String, CodingKey {
        case tls = "TLS"
        case cipherSuite = "CipherSuite"
    }

    struct TLS: Codable, Sendable {
        var enable: Bool
        var versions: [String]
        enum CodingKeys: String, CodingKey {
            case enable = "Enable"
            case versions = "TLSVersion"
        }
    }

    struct CipherSuite: Codable, Sendable {
        var enable: Bool
        var strong: Bool?
        var custom: [String]
        var tls13Custom: [String]
        enum CodingKeys: String, CodingKey {
            case enable = "Enable"
            case strong = "StrongCipherSuite"
            case custom = "CustomCipherSuite"
            case tls13Custom = "TLS13CustomCipherSuite"
        }
    }

    func check(_ context: ConfigurationCheck) throws {
        if tls.enable, tls.versions.isEmpty {
            throw LocalOSSError.malformedXML("TLSVersion is required when TLS is enabled.")
        }
        for version in tls.versions where !Self.versions.contains(version) {
            throw LocalOSSError.invalidArgument("The TLS version is not supported.", name: "TLSVersion", value: version)
        }
        if let suite = cipherSuite, suite.enable, suite.strong == true, !(suite.custom + suite.tls13Custom).isEmpty {
            throw LocalOSSError.invalidArgument(
                "Custom cipher suites are given only when StrongCipherSuite is false.", name: "CustomCipherSuite")
        }
    }
}

/// `<AccessMonitorConfiguration><Status>Enabled|Disabled</Status></…>`; a bucket never configured answers
/// Disabled.
struct AccessMonitorDocument: ConfigurationDocument {
    static let root = "AccessMonitorConfiguration"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <AccessMonitorConfiguration><Status>Disabled</Status></AccessMonitorConfiguration>
        """

    var status: String
    enum CodingKeys: String, CodingKey { case status = "Status" }

    func check(_ context: ConfigurationCheck) throws {
        guard status == "Enabled" || status == "Disabled" else {
            throw LocalOSSError.invalidArgument("Status is Enabled or Disabled.", name: "Status", value: status)
        }
    }
}

/// `<ArchiveDirectReadConfiguration><Enabled>true|false</Enabled></…>`; a bucket never configured answers false.
struct ArchiveDirectReadDocument: ConfigurationDocument {
    static let root = "ArchiveDirectReadConfiguration"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <ArchiveDirectReadConfiguration><Enabled>false</Enabled></ArchiveDirectReadConfiguration>
        """

    var enabled: Bool
    enum CodingKeys: String, CodingKey { case enabled = "Enabled" }

    func check(_ context: ConfigurationCheck) {}
}

/// `<BucketResourceGroupConfiguration><ResourceGroupId>rg-…</ResourceGroupId></…>`; a bucket in the default group
/// answers `rg-default-id`, as OSS documents.
struct ResourceGroupDocument: ConfigurationDocument {
    static let root = "BucketResourceGroupConfiguration"
    static let unsetDocument = """
        <?xml version="1.0" encoding="UTF-8"?>
        <BucketResourceGroupConfiguration><ResourceGroupId>rg-default-id</ResourceGroupId></BucketResourceGroupConfiguration>
        """

    var id: String
    enum CodingKeys: String, CodingKey { case id = "ResourceGroupId" }

    func check(_ context: ConfigurationCheck) throws {
        let body = id.dropFirst(3)
        guard id.hasPrefix("rg-"), !body.isEmpty, body.count <= 61,
            body.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "*") })
        else { throw LocalOSSError.invalidArgument("The resource group ID is not valid.", name: "ResourceGroupId", value: id) }
    }
}

/// `<InventoryConfiguration>` (PutBucketInventory, `?inventory&inventoryId=`): the `Id` is the query's
/// `inventoryId`, the destination bucket (`acs:oss:::name`) exists, the schedule is Daily or Weekly, the format CSV,
/// the versions All or Current, the size bounds ordered.
struct InventoryDocument: Codable, Sendable {
    static let root = "InventoryConfiguration"
    static let frequencies: Set<String> = ["Daily", "Weekly"]
    static let fields: Set<String> = [
        "Size", "LastModifiedDate", "ETag", "StorageClass", "IsMultipartUploaded", "EncryptionStatus",
        "ObjectAcl", "TaggingCount", "ObjectType", "Crc64", "TransitionTime", "IncrementalInventory",
    ]

    var id: String
    var isEnabled: Bool
    var destination: Destination
    var schedule: Schedule
    var filter: Filter?
    var includedObjectVersions: String
    var optionalFields: OptionalFields?
    var incrementalInventory: Incremental?

    enum CodingKeys: String, CodingKey {
        case id = "Id", isEnabled = "IsEnabled", destination = "Destination", schedule = "Schedule", filter = "Filter"
        case includedObjectVersions = "IncludedObjectVersions", optionalFields = "OptionalFields"
        case incrementalInventory = "IncrementalInventory"
    }

    struct Destination: Codable, Sendable {
        var bucket: BucketDestination
        enum CodingKeys: String, CodingKey { case bucket = "OSSBucketDestination" }
    }

    struct BucketDestination: Codable, Sendable {
        var format: String
        var accountId: String?
        var roleArn: String?
        var bucket: String
        var prefix: String?
        var encryption: Encryption?
        enum CodingKeys: String, CodingKey {
            case format = "Format", accountId = "AccountId", roleArn = "RoleArn", bucket = "Bucket", prefix = "Prefix"
            case encryption = "Encryption"
        }
    }

    struct Encryption: Codable, Sendable {
        var kms: KMS?
        var oss: String?
        enum CodingKeys: String, CodingKey {
            case kms = "SSE-KMS"
            case oss = "SSE-OSS"
        }
        struct KMS: Codable, Sendable {
            var keyId: String
            enum CodingKeys: String, CodingKey { case keyId = "KeyId" }
        }
    }

    struct Schedule: Codable, Sendable {
        var frequency: String
        enum CodingKeys: String, CodingKey { case frequency = "Frequency" }
    }

    struct Filter: Codable, Sendable {
        var prefix: String?
        var lastModifyBeginTimeStamp: Int64?
        var lastModifyEndTimeStamp: Int64?
        var lowerSizeBound: Int64?
        var upperSizeBound: Int64?
        var storageClass: String?
        enum CodingKeys: String, CodingKey {
            case prefix = "Prefix", lastModifyBeginTimeStamp = "LastModifyBeginTimeStamp"
            case lastModifyEndTimeStamp = "LastModifyEndTimeStamp", lowerSizeBound = "LowerSizeBound"
            case upperSizeBound = "UpperSizeBound", storageClass = "StorageClass"
        }
    }

    struct OptionalFields: Codable, Sendable {
        var fields: [String]
        enum CodingKeys: String, CodingKey { case fields = "Field" }
    }

    struct Incremental: Codable, Sendable {
        var isEnabled: Bool
        var schedule: IncrementalSchedule?
        var optionalFields: OptionalFields?
        enum CodingKeys: String, CodingKey {
            case isEnabled = "IsEnabled", schedule = "Schedule", optionalFields = "OptionalFields"
        }
    }

    struct IncrementalSchedule: Codable, Sendable {
        var frequency: Int
        enum CodingKeys: String, CodingKey { case frequency = "Frequency" }
    }

    func check(name: String, _ context: ConfigurationCheck) async throws {
        guard id == name else {
            throw LocalOSSError.invalidArgument("The inventory Id does not match the inventoryId parameter.", name: "Id", value: id)
        }
        let target = destination.bucket.bucket
        let bucketName = target.hasPrefix("acs:oss:::") ? String(target.dropFirst(10)) : ""
        guard Router.isValidBucketName(bucketName), (try? await context.store.bucket(bucketName)) != nil else {
            throw LocalOSSError.invalidArgument(
                "The destination bucket does not exist or is not acs:oss:::<bucket>.", name: "Bucket", value: target)
        }
        guard destination.bucket.format == "CSV" else {
            throw LocalOSSError.invalidArgument("The inventory format is CSV.", name: "Format", value: destination.bucket.format)
        }
        guard Self.frequencies.contains(schedule.frequency) else {
            throw LocalOSSError.invalidArgument("Frequency is Daily or Weekly.", name: "Frequency", value: schedule.frequency)
        }
        guard includedObjectVersions == "All" || includedObjectVersions == "Current" else {
            throw LocalOSSError.invalidArgument(
                "IncludedObjectVersions is All or Current.", name: "IncludedObjectVersions", value: includedObjectVersions)
        }
        for field in optionalFields?.fields ?? [] where !Self.fields.contains(field) {
            throw LocalOSSError.invalidArgument("Unknown optional field.", name: "Field", value: field)
        }
        if let kms = destination.bucket.encryption, kms.kms != nil, kms.oss != nil {
            throw LocalOSSError.invalidArgument("An inventory is encrypted with SSE-KMS or SSE-OSS, not both.", name: "Encryption")
        }
        if let filter {
            if let lower = filter.lowerSizeBound, let upper = filter.upperSizeBound, lower >= upper {
                throw LocalOSSError.invalidArgument("LowerSizeBound is below UpperSizeBound.", name: "LowerSizeBound", value: String(lower))
            }
            if let begin = filter.lastModifyBeginTimeStamp, let end = filter.lastModifyEndTimeStamp, begin >= end {
                throw LocalOSSError.invalidArgument(
                    "LastModifyBeginTimeStamp is before LastModifyEndTimeStamp.", name: "LastModifyBeginTimeStamp",
                    value: String(begin))
            }
        }
    }
}

/// `<Style><Content>image/resize,p_50</Content></Style>` (PutStyle, `?style&styleName=`): the content is an image
/// processing chain of at most 4096 characters; the name 1 to 64 letters, digits, `-`, `_` and `.`.
struct StyleDocument: Codable, Sendable {
    static let root = "Style"
    var content: String
    enum CodingKeys: String, CodingKey { case content = "Content" }

    static func checkName(_ name: String) throws(LocalOSSError) {
        guard !name.isEmpty, name.count <= 64,
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == ".") })
        else { throw .invalidArgument("The style name is not valid.", name: "styleName", value: name) }
    }

    func check() throws(LocalOSSError) {
        guard !content.isEmpty, content.count <= 4096, content.hasPrefix("image/") else {
            throw .invalidArgument("A style's Content is an image processing chain (image/...).", name: "Content", value: String(content.prefix(64)))
        }
    }
}

/// A stored style: what GetStyle and ListStyle answer for it.
struct StyleInfo: Codable, Sendable {
    var name: String
    var content: String
    var createTime: String
    var lastModifyTime: String
    var category: String
    enum CodingKeys: String, CodingKey {
        case name = "Name", content = "Content", createTime = "CreateTime", lastModifyTime = "LastModifyTime"
        case category = "Category"
    }
}

/// `<ReplicationConfiguration><Rule>…</Rule></…>` (PutBucketReplication, `POST ?replication&comp=add`): one rule
/// per call, its destination an existing other bucket, `Action` ALL or PUT, historical replication enabled or
/// disabled, transfer internal, oss_acc or nothing; a bucket has at most 100 rules.
struct ReplicationDocument: Codable, Sendable {
    static let root = "ReplicationConfiguration"
    static let maximumRules = 100
    var rules: [Rule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }

    struct Rule: Codable, Sendable {
        var id: String?
        var prefixSet: PrefixSet?
        var action: String?
        var destination: Destination
        var status: String?
        var historicalObjectReplication: String?
        var syncRole: String?
        var sourceSelectionCriteria: SourceSelectionCriteria?
        var encryptionConfiguration: EncryptionConfiguration?
        var rtc: RTC?
        enum CodingKeys: String, CodingKey {
            case id = "ID", prefixSet = "PrefixSet", action = "Action", destination = "Destination", status = "Status"
            case historicalObjectReplication = "HistoricalObjectReplication", syncRole = "SyncRole"
            case sourceSelectionCriteria = "SourceSelectionCriteria", encryptionConfiguration = "EncryptionConfiguration"
            case rtc = "RTC"
        }
    }

    struct PrefixSet: Codable, Sendable {
        var prefixes: [String]
        enum CodingKeys: String, CodingKey { case prefixes = "Prefix" }
    }

    struct Destination: Codable, Sendable {
        var bucket: String
        var location: String
        var transferType: String?
        enum CodingKeys: String, CodingKey { case bucket = "Bucket", location = "Location", transferType = "TransferType" }
    }

    struct SourceSelectionCriteria: Codable, Sendable {
        var kms: Status?
        enum CodingKeys: String, CodingKey { case kms = "SseKmsEncryptedObjects" }
    }

    struct Status: Codable, Sendable {
        var status: String
        enum CodingKeys: String, CodingKey { case status = "Status" }
    }

    struct EncryptionConfiguration: Codable, Sendable {
        var replicaKmsKeyId: String
        enum CodingKeys: String, CodingKey { case replicaKmsKeyId = "ReplicaKmsKeyID" }
    }

    typealias RTC = Status

    /// Checks a rule being added to `context.bucket`.
    static func check(_ rule: Rule, _ context: ConfigurationCheck) async throws {
        let target = rule.destination.bucket
        guard target != context.bucket, Router.isValidBucketName(target), (try? await context.store.bucket(target)) != nil else {
            throw LocalOSSError.invalidArgument("The destination bucket does not exist or is the source bucket.", name: "Bucket", value: target)
        }
        if let action = rule.action, action != "ALL", action != "PUT" {
            throw LocalOSSError.invalidArgument("Action is ALL or PUT.", name: "Action", value: action)
        }
        if let history = rule.historicalObjectReplication, history != "enabled", history != "disabled" {
            throw LocalOSSError.invalidArgument(
                "HistoricalObjectReplication is enabled or disabled.", name: "HistoricalObjectReplication", value: history)
        }
        if let transfer = rule.destination.transferType, transfer != "internal", transfer != "oss_acc" {
            throw LocalOSSError.invalidArgument("TransferType is internal or oss_acc.", name: "TransferType", value: transfer)
        }
        if let prefixes = rule.prefixSet?.prefixes, prefixes.count > 10 {
            throw LocalOSSError.invalidArgument("A rule has at most 10 prefixes.", name: "Prefix")
        }
        if rule.sourceSelectionCriteria?.kms?.status == "Enabled", rule.encryptionConfiguration == nil {
            throw LocalOSSError.invalidArgument(
                "Replicating KMS-encrypted objects needs a ReplicaKmsKeyID.", name: "ReplicaKmsKeyID")
        }
    }
}

/// `<ReplicationRules><ID>…</ID></ReplicationRules>`: the rule DeleteBucketReplication removes.
struct ReplicationRulesDocument: Codable, Sendable {
    static let root = "ReplicationRules"
    var ids: [String]
    enum CodingKeys: String, CodingKey { case ids = "ID" }
}
