/// Operations families, whose effect lives outside the data path: HTTPS (TLS) settings, access tracking, direct
/// reads of archived objects, the resource group, inventories, image styles and cross-region replication.

/// `<HttpsConfiguration>` (PutBucketHttpsConfig, `?httpsConfig`): the TLS versions and cipher suites the bucket's
/// HTTPS endpoint accepts. OSS has no delete: put `TLS.enable` false. A bucket never configured answers TLS off.
public struct OSSHTTPSConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "HttpsConfig", subresource: "httpsConfig", root: "HttpsConfiguration")
    public static let tlsVersions: Set<String> = ["TLSv1", "TLSv1.1", "TLSv1.2", "TLSv1.3"]

    public var tls: TLS
    public var cipherSuite: CipherSuite?

    public init(tls: TLS, cipherSuite: CipherSuite? = nil) {
        self.tls = tls
        self.cipherSuite = cipherSuite
    }

    enum CodingKeys: String, CodingKey {
        case tls = "TLS"
        case cipherSuite
    }

    /// `<TLS>`.
    public struct TLS: Codable, Sendable, Hashable {
        public var enable: Bool
        /// `TLSv1`, `TLSv1.1`, `TLSv1.2`, `TLSv1.3`: at least one when enabled.
        public var tlsVersions: [String]

        public init(enable: Bool, tlsVersions: [String] = []) {
            self.enable = enable
            self.tlsVersions = tlsVersions
        }

        enum CodingKeys: String, CodingKey {
            case enable
            case tlsVersions = "TLSVersion"
        }
    }

    /// `<CipherSuite>`: OSS's strong suites, or a custom list.
    public struct CipherSuite: Codable, Sendable, Hashable {
        public var enable: Bool
        public var strongCipherSuite: Bool?
        /// Suites for TLS 1.2 and below (only when `strongCipherSuite` is false).
        public var customCipherSuites: [String]
        /// Suites for TLS 1.3 (only when `strongCipherSuite` is false).
        public var tls13CustomCipherSuites: [String]

        public init(
            enable: Bool, strongCipherSuite: Bool? = nil, customCipherSuites: [String] = [], tls13CustomCipherSuites: [String] = []
        ) {
            self.enable = enable
            self.strongCipherSuite = strongCipherSuite
            self.customCipherSuites = customCipherSuites
            self.tls13CustomCipherSuites = tls13CustomCipherSuites
        }

        enum CodingKeys: String, CodingKey {
            case enable, strongCipherSuite
            case customCipherSuites = "CustomCipherSuite"
            case tls13CustomCipherSuites = "TLS13CustomCipherSuite"
        }
    }

    public func validate() throws {
        if tls.enable, tls.tlsVersions.isEmpty {
            throw OSSClientError.invalidArgument("HttpsConfig: TLS enabled names at least one TLS version")
        }
        for version in tls.tlsVersions where !Self.tlsVersions.contains(version) {
            throw OSSClientError.invalidArgument("HttpsConfig: \(version.debugDescription) is not one of \(Self.tlsVersions.sorted())")
        }
    }
}

/// `<AccessMonitorConfiguration>` (PutBucketAccessMonitor, `?accessmonitor`): whether OSS tracks objects' last
/// access time (which lifecycle rules on access time need). A bucket never configured answers `Disabled`.
public struct OSSAccessMonitorConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "AccessMonitor", subresource: "accessmonitor", root: "AccessMonitorConfiguration")

    /// `Enabled` or `Disabled`.
    public var status: String

    public init(status: String) { self.status = status }

    public func validate() throws {
        guard status == "Enabled" || status == "Disabled" else {
            throw OSSClientError.invalidArgument("AccessMonitor: the status is Enabled or Disabled, not \(status.debugDescription)")
        }
    }
}

/// `<ArchiveDirectReadConfiguration>` (PutBucketArchiveDirectRead, `?bucketArchiveDirectRead`): whether Archive
/// objects can be read without restoring them first. A bucket never configured answers false.
public struct OSSArchiveDirectReadConfiguration: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(
        name: "ArchiveDirectRead", subresource: "bucketArchiveDirectRead", root: "ArchiveDirectReadConfiguration")

    public var enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }
}

/// `<BucketResourceGroupConfiguration>` (PutBucketResourceGroup, `?resourceGroup`): the resource group the bucket
/// belongs to; a bucket in the default group answers `rg-default-id`.
public struct OSSBucketResourceGroup: OSSBucketConfiguration, Hashable {
    public static let family = OSSBucketConfigurationFamily(name: "ResourceGroup", subresource: "resourceGroup", root: "BucketResourceGroupConfiguration")

    public var resourceGroupId: String

    public init(resourceGroupId: String) { self.resourceGroupId = resourceGroupId }

    public func validate() throws {
        guard resourceGroupId.hasPrefix("rg-"), resourceGroupId.count > 3 else {
            throw OSSClientError.invalidArgument("ResourceGroup: a resource group ID starts with rg-, not \(resourceGroupId.debugDescription)")
        }
    }
}

/// `<InventoryConfiguration>` (PutBucketInventory, `?inventory&inventoryId=`): a daily or weekly CSV listing of the
/// bucket's objects written to a destination bucket. A bucket keeps up to 1000, each named by its ``id``.
public struct OSSInventoryConfiguration: OSSNamedBucketConfiguration, Hashable {
    public static let entries = OSSBucketConfigurationEntries(
        stem: "BucketInventory", subresource: "inventory", nameParameter: "inventoryId", root: "InventoryConfiguration",
        listRoot: "ListInventoryConfigurationsResult")

    public var id: String
    public var isEnabled: Bool
    public var destination: Destination
    public var schedule: Schedule
    public var filter: Filter?
    /// `All` or `Current`.
    public var includedObjectVersions: String
    public var optionalFields: OptionalFields?
    public var incrementalInventory: IncrementalInventory?

    public init(
        id: String, isEnabled: Bool, destination: Destination, schedule: Schedule, filter: Filter? = nil,
        includedObjectVersions: String = "All", optionalFields: OptionalFields? = nil,
        incrementalInventory: IncrementalInventory? = nil
    ) {
        self.id = id
        self.isEnabled = isEnabled
        self.destination = destination
        self.schedule = schedule
        self.filter = filter
        self.includedObjectVersions = includedObjectVersions
        self.optionalFields = optionalFields
        self.incrementalInventory = incrementalInventory
    }

    enum CodingKeys: String, CodingKey {
        case id = "Id"
        case isEnabled, destination, schedule, filter, includedObjectVersions, optionalFields, incrementalInventory
    }

    /// `<Destination><OSSBucketDestination>`.
    public struct Destination: Codable, Sendable, Hashable {
        public var ossBucketDestination: BucketDestination

        public init(_ bucket: BucketDestination) { ossBucketDestination = bucket }

        enum CodingKeys: String, CodingKey { case ossBucketDestination = "OSSBucketDestination" }
    }

    /// `<OSSBucketDestination>`: the bucket (`acs:oss:::name`) and prefix the lists go to, written as `roleArn`.
    public struct BucketDestination: Codable, Sendable, Hashable {
        /// `CSV`.
        public var format: String
        public var accountId: String?
        public var roleArn: String?
        /// `acs:oss:::<bucket>`.
        public var bucket: String
        public var prefix: String?
        public var encryption: Encryption?

        public init(
            bucket: String, format: String = "CSV", accountId: String? = nil, roleArn: String? = nil, prefix: String? = nil,
            encryption: Encryption? = nil
        ) {
            self.format = format
            self.accountId = accountId
            self.roleArn = roleArn
            self.bucket = bucket
            self.prefix = prefix
            self.encryption = encryption
        }
    }

    /// `<Encryption>`: `<SSE-KMS><KeyId>` or `<SSE-OSS/>`.
    public struct Encryption: Codable, Sendable, Hashable {
        public var sseKMS: KMS?
        public var sseOSS: String?

        public init(sseKMS: KMS? = nil, sseOSS: String? = nil) {
            self.sseKMS = sseKMS
            self.sseOSS = sseOSS
        }

        enum CodingKeys: String, CodingKey {
            case sseKMS = "SSE-KMS"
            case sseOSS = "SSE-OSS"
        }

        public struct KMS: Codable, Sendable, Hashable {
            public var keyId: String
            public init(keyId: String) { self.keyId = keyId }
        }
    }

    /// `<Schedule><Frequency>Daily|Weekly</Frequency></Schedule>`.
    public struct Schedule: Codable, Sendable, Hashable {
        public var frequency: String
        public init(frequency: String) { self.frequency = frequency }
    }

    /// `<Filter>`: which objects are listed.
    public struct Filter: Codable, Sendable, Hashable {
        public var prefix: String?
        public var lastModifyBeginTimeStamp: Int64?
        public var lastModifyEndTimeStamp: Int64?
        public var lowerSizeBound: Int64?
        public var upperSizeBound: Int64?
        /// Comma-separated storage classes (`Standard,IA`).
        public var storageClass: String?

        public init(
            prefix: String? = nil, lastModifyBeginTimeStamp: Int64? = nil, lastModifyEndTimeStamp: Int64? = nil,
            lowerSizeBound: Int64? = nil, upperSizeBound: Int64? = nil, storageClass: String? = nil
        ) {
            self.prefix = prefix
            self.lastModifyBeginTimeStamp = lastModifyBeginTimeStamp
            self.lastModifyEndTimeStamp = lastModifyEndTimeStamp
            self.lowerSizeBound = lowerSizeBound
            self.upperSizeBound = upperSizeBound
            self.storageClass = storageClass
        }
    }

    /// `<OptionalFields><Field>Size</Field>…</OptionalFields>`.
    public struct OptionalFields: Codable, Sendable, Hashable {
        public var fields: [String]
        public init(_ fields: [String]) { self.fields = fields }
        enum CodingKeys: String, CodingKey { case fields = "Field" }
    }

    /// `<IncrementalInventory>`.
    public struct IncrementalInventory: Codable, Sendable, Hashable {
        public var isEnabled: Bool
        public var schedule: IncrementalSchedule?
        public var optionalFields: OptionalFields?

        public init(isEnabled: Bool, schedule: IncrementalSchedule? = nil, optionalFields: OptionalFields? = nil) {
            self.isEnabled = isEnabled
            self.schedule = schedule
            self.optionalFields = optionalFields
        }
    }

    /// `<Schedule><Frequency>seconds</Frequency></Schedule>` of an incremental inventory.
    public struct IncrementalSchedule: Codable, Sendable, Hashable {
        public var frequency: Int
        public init(frequency: Int) { self.frequency = frequency }
    }

    public func validate() throws {
        guard !id.isEmpty else { throw OSSClientError.invalidArgument("an inventory needs an Id") }
        guard schedule.frequency == "Daily" || schedule.frequency == "Weekly" else {
            throw OSSClientError.invalidArgument("an inventory runs Daily or Weekly, not \(schedule.frequency.debugDescription)")
        }
        guard includedObjectVersions == "All" || includedObjectVersions == "Current" else {
            throw OSSClientError.invalidArgument("IncludedObjectVersions is All or Current, not \(includedObjectVersions.debugDescription)")
        }
    }
}

/// `<Style><Content>image/resize,p_50</Content></Style>` (PutStyle, `?style&styleName=`): a named image processing
/// chain, used as `x-oss-process=style/<name>`. GetStyle and ListStyle answer ``OSSImageStyleInfo``.
public struct OSSImageStyle: OSSNamedBucketConfiguration, Hashable {
    public typealias Entry = OSSImageStyleInfo
    public static let entries = OSSBucketConfigurationEntries(
        stem: "Style", subresource: "style", nameParameter: "styleName", root: "Style", listRoot: "StyleList")

    /// The processing chain, `image/…`.
    public var content: String

    public init(content: String) { self.content = content }

    public func validate() throws {
        guard content.hasPrefix("image/") else {
            throw OSSClientError.invalidArgument("a style's content is an image processing chain (image/...)")
        }
    }
}

/// A stored style, as GetStyle and ListStyle describe it.
public struct OSSImageStyleInfo: Codable, Sendable, Hashable {
    public var name: String
    public var content: String
    /// `Wed, 20 May 2020 12:07:15 GMT`, as OSS writes it.
    public var createTime: String?
    public var lastModifyTime: String?
    /// `image`, `document` or `video`.
    public var category: String?
}

/// A cross-region replication rule (`<Rule>` of `<ReplicationConfiguration>`): PutBucketReplication adds one,
/// DeleteBucketReplication removes one by ``id``.
public struct OSSReplicationRule: Codable, Sendable, Hashable {
    /// Set by OSS when absent (PutBucketReplication's result names it).
    public var id: String?
    public var prefixSet: PrefixSet?
    /// `ALL` or `PUT`.
    public var action: String?
    public var destination: Destination
    /// Set by OSS: `starting`, `doing` or `closing`.
    public var status: String?
    /// `enabled` or `disabled`.
    public var historicalObjectReplication: String?
    /// The RAM role OSS replicates as.
    public var syncRole: String?
    public var sourceSelectionCriteria: SourceSelectionCriteria?
    public var encryptionConfiguration: EncryptionConfiguration?
    public var rtc: StatusElement?

    public init(
        id: String? = nil, prefixSet: PrefixSet? = nil, action: String? = nil, destination: Destination, status: String? = nil,
        historicalObjectReplication: String? = nil, syncRole: String? = nil,
        sourceSelectionCriteria: SourceSelectionCriteria? = nil, encryptionConfiguration: EncryptionConfiguration? = nil,
        rtc: StatusElement? = nil
    ) {
        self.id = id
        self.prefixSet = prefixSet
        self.action = action
        self.destination = destination
        self.status = status
        self.historicalObjectReplication = historicalObjectReplication
        self.syncRole = syncRole
        self.sourceSelectionCriteria = sourceSelectionCriteria
        self.encryptionConfiguration = encryptionConfiguration
        self.rtc = rtc
    }

    enum CodingKeys: String, CodingKey {
        case id = "ID"
        case rtc = "RTC"
        case prefixSet, action, destination, status, historicalObjectReplication, syncRole, sourceSelectionCriteria
        case encryptionConfiguration
    }

    /// `<PrefixSet><Prefix>…</Prefix></PrefixSet>`: at most 10 prefixes.
    public struct PrefixSet: Codable, Sendable, Hashable {
        public var prefixes: [String]
        public init(_ prefixes: [String]) { self.prefixes = prefixes }
        enum CodingKeys: String, CodingKey { case prefixes = "Prefix" }
    }

    /// `<Destination>`: the bucket, its region (`oss-cn-beijing`) and the link (`internal` or `oss_acc`).
    public struct Destination: Codable, Sendable, Hashable {
        public var bucket: String
        public var location: String
        public var transferType: String?

        public init(bucket: String, location: String, transferType: String? = nil) {
            self.bucket = bucket
            self.location = location
            self.transferType = transferType
        }
    }

    /// `<SourceSelectionCriteria><SseKmsEncryptedObjects><Status>`.
    public struct SourceSelectionCriteria: Codable, Sendable, Hashable {
        public var sseKmsEncryptedObjects: StatusElement?
        public init(sseKmsEncryptedObjects: StatusElement?) { self.sseKmsEncryptedObjects = sseKmsEncryptedObjects }
    }

    /// `<EncryptionConfiguration><ReplicaKmsKeyID>`.
    public struct EncryptionConfiguration: Codable, Sendable, Hashable {
        public var replicaKmsKeyId: String
        public init(replicaKmsKeyId: String) { self.replicaKmsKeyId = replicaKmsKeyId }
        enum CodingKeys: String, CodingKey { case replicaKmsKeyId = "ReplicaKmsKeyID" }
    }

    /// `<Status>Enabled|Disabled</Status>` (RTC, and whether KMS-encrypted objects are replicated).
    public struct StatusElement: Codable, Sendable, Hashable {
        public var status: String
        public init(status: String) { self.status = status }
    }
}
