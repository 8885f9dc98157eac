#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Access points: named entries to a bucket, each with its own alias, network origin and policy. The name says
/// which access point (`x-oss-access-point-name`), so the calls are declared here rather than as a family.
extension OSSClient {
    /// CreateAccessPoint (`PUT /?accessPoint`): `name` is 3 to 19 lowercase letters, digits and hyphens, not
    /// starting or ending with a hyphen nor ending with `-ossalias`, unique in the account; `networkOrigin` is
    /// `internet` or `vpc` (with `vpcId`). Returns its ARN and alias.
    public func createAccessPoint(
        name: String, networkOrigin: String = "internet", vpcId: String? = nil, bucketName: String
    ) async throws -> OSSCreateAccessPointResult {
        try await perform(OSSCreateAccessPointRequest(
            bucketName: bucketName,
            configuration: .init(accessPointName: name, networkOrigin: networkOrigin, vpcConfiguration: vpcId.map { .init(vpcId: $0) })))
    }

    /// GetAccessPoint (`GET /?accessPoint` with `x-oss-access-point-name`); `NoSuchAccessPoint` when absent.
    public func getAccessPoint(name: String, bucketName: String) async throws -> OSSGetAccessPointResult {
        try await perform(OSSAccessPointRequest(
            api: OSSAPI("GetAccessPoint", "GET", subresource: "accessPoint"), bucketName: bucketName, name: name,
            as: OSSGetAccessPointResult.self))
    }

    /// ListAccessPoints (`GET /?accessPoint`): a bucket's access points, or the account's when `bucketName` is
    /// `nil`; at most `maxKeys` (1 to 1000) a page after `continuationToken`.
    public func listAccessPoints(
        bucketName: String? = nil, maxKeys: Int? = nil, continuationToken: String? = nil
    ) async throws -> OSSListAccessPointsResult {
        try await perform(OSSListAccessPointsRequest(bucket: bucketName, maxKeys: maxKeys, continuationToken: continuationToken))
    }

    /// DeleteAccessPoint (`DELETE /?accessPoint` with `x-oss-access-point-name`).
    @discardableResult
    public func deleteAccessPoint(name: String, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSAccessPointRequest(
            api: OSSAPI("DeleteAccessPoint", "DELETE", subresource: "accessPoint"), bucketName: bucketName, name: name,
            as: OSSEmptyResult.self))
    }

    /// PutAccessPointPolicy (`PUT /?accessPointPolicy`): the access point's policy, JSON like a bucket policy whose
    /// resources name the access point (`acs:oss:*:<uid>:accesspoint/<name>`, `…/object/*`).
    @discardableResult
    public func putAccessPointPolicy(_ policy: String, accessPointName: String, bucketName: String) async throws -> OSSEmptyResult {
        let bytes = Array(policy.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maximumBucketPolicySize else {
            throw OSSClientError.invalidArgument("an access point policy is 1 byte to 16 KB of JSON, not \(bytes.count) bytes")
        }
        var operation = try OSSAccessPointRequest(
            api: OSSAPI("PutAccessPointPolicy", "PUT", subresource: "accessPointPolicy"), bucketName: bucketName,
            name: accessPointName, as: OSSEmptyResult.self
        ).operation()
        operation.body = .bytes(Data(bytes))
        operation.setHeader("content-type", "application/json")
        operation.setHeader("content-md5", OSSFileDigest.contentMD5(bytes))
        return try await execute(operation) { try await OSSEmptyResult.decode($0) }
    }

    /// GetAccessPointPolicy (`GET /?accessPointPolicy`): the JSON text; `NoSuchAccessPointPolicy` when none is set.
    public func getAccessPointPolicy(accessPointName: String, bucketName: String) async throws -> OSSGetBucketPolicyResult {
        try await perform(OSSAccessPointRequest(
            api: OSSAPI("GetAccessPointPolicy", "GET", subresource: "accessPointPolicy"), bucketName: bucketName,
            name: accessPointName, as: OSSGetBucketPolicyResult.self))
    }

    /// DeleteAccessPointPolicy (`DELETE /?accessPointPolicy`).
    @discardableResult
    public func deleteAccessPointPolicy(accessPointName: String, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSAccessPointRequest(
            api: OSSAPI("DeleteAccessPointPolicy", "DELETE", subresource: "accessPointPolicy"), bucketName: bucketName,
            name: accessPointName, as: OSSEmptyResult.self))
    }
}

/// An access point as GetAccessPoint describes it (`<GetAccessPointResult>`).
public struct OSSAccessPoint: Codable, Sendable, Hashable {
    public var accessPointName: String
    public var bucket: String
    public var accountId: String?
    /// `internet` or `vpc`.
    public var networkOrigin: String?
    public var vpcConfiguration: VpcConfiguration?
    public var accessPointArn: String?
    /// `<name>-<suffix>-ossalias`: usable wherever a bucket name is.
    public var alias: String?
    /// `creating`, `enable`, `disable` or `deleting`.
    public var status: String?
    public var creationDate: String?
    public var endpoints: Endpoints?
    public var publicAccessBlockConfiguration: OSSPublicAccessBlockConfiguration?

    /// `<VpcConfiguration>`.
    public struct VpcConfiguration: Codable, Sendable, Hashable {
        public var vpcId: String?
        public init(vpcId: String?) { self.vpcId = vpcId }
        enum CodingKeys: String, CodingKey { case vpcId = "VpcId" }
    }

    /// `<Endpoints>`.
    public struct Endpoints: Codable, Sendable, Hashable {
        public var publicEndpoint: String?
        public var internalEndpoint: String?
        enum CodingKeys: String, CodingKey { case publicEndpoint = "PublicEndpoint", internalEndpoint = "InternalEndpoint" }
    }

    enum CodingKeys: String, CodingKey {
        case accessPointName = "AccessPointName", bucket = "Bucket", accountId = "AccountId", networkOrigin = "NetworkOrigin"
        case vpcConfiguration = "VpcConfiguration", accessPointArn = "AccessPointArn", alias = "Alias", status = "Status"
        case creationDate = "CreationDate", endpoints = "Endpoints", publicAccessBlockConfiguration = "PublicAccessBlockConfiguration"
    }
}

/// The result of CreateAccessPoint.
public struct OSSCreateAccessPointResult: Sendable {
    public var accessPointArn: String
    public var alias: String
    public var requestId: String
}

/// The result of GetAccessPoint.
public struct OSSGetAccessPointResult: Sendable {
    public var accessPoint: OSSAccessPoint
    public var requestId: String
}

/// One page of ListAccessPoints.
public struct OSSListAccessPointsResult: Sendable {
    /// Each with its name, bucket, network origin, VPC, alias and status.
    public var accessPoints: [OSSAccessPoint]
    public var accountId: String?
    public var maxKeys: Int?
    public var isTruncated: Bool
    public var nextContinuationToken: String?
    public var requestId: String
}

/// `<CreateAccessPointConfiguration>`.
struct OSSCreateAccessPointConfiguration: OSSXMLDocument, Encodable {
    static let root = "CreateAccessPointConfiguration"
    var accessPointName: String
    var networkOrigin: String
    var vpcConfiguration: OSSAccessPoint.VpcConfiguration?
    enum CodingKeys: String, CodingKey {
        case accessPointName = "AccessPointName", networkOrigin = "NetworkOrigin", vpcConfiguration = "VpcConfiguration"
    }
}

enum OSSAccessPointName {
    /// OSS's naming rules for an access point.
    static func check(_ name: String, _ api: String) throws {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        guard (3...19).contains(bytes.count), allowed, bytes.first != 0x2D, bytes.last != 0x2D, !name.hasSuffix("-ossalias") else {
            throw OSSClientError.invalidArgument(
                "\(api): an access point name is 3 to 19 lowercase letters, digits and hyphens, not starting or ending with a hyphen nor ending with -ossalias, not \(name.debugDescription)")
        }
    }
}

struct OSSCreateAccessPointRequest: OSSBucketOperation {
    typealias Result = OSSCreateAccessPointResult
    var bucketName: String
    var configuration: OSSCreateAccessPointConfiguration
    var api: OSSAPI { OSSAPI("CreateAccessPoint", "PUT", subresource: "accessPoint") }
    var body: OSSCreateAccessPointConfiguration? { configuration }

    func validate() throws {
        try OSSAccessPointName.check(configuration.accessPointName, api.name)
        guard ["internet", "vpc"].contains(configuration.networkOrigin) else {
            throw OSSClientError.invalidArgument("CreateAccessPoint: the network origin is internet or vpc, not \(configuration.networkOrigin.debugDescription)")
        }
        if configuration.networkOrigin == "vpc", configuration.vpcConfiguration?.vpcId?.isEmpty ?? true {
            throw OSSClientError.invalidArgument("CreateAccessPoint: a vpc access point names its VPC")
        }
    }
}

/// The calls on one access point, named in `x-oss-access-point-name`.
struct OSSAccessPointRequest<Result: OSSDeclaredResult>: OSSBucketOperation {
    var api: OSSAPI
    var bucketName: String
    var name: String

    init(api: OSSAPI, bucketName: String, name: String, as result: Result.Type) {
        self.api = api
        self.bucketName = bucketName
        self.name = name
    }

    static var parameters: [OSSParameter<Self>] { [.header("x-oss-access-point-name", \.name)] }
    func validate() throws { try OSSAccessPointName.check(name, api.name) }
}

struct OSSListAccessPointsRequest: OSSDeclaredOperation {
    typealias Result = OSSListAccessPointsResult
    var bucket: String?
    var maxKeys: Int?
    var continuationToken: String?
    var api: OSSAPI { OSSAPI("ListAccessPoints", "GET", subresource: "accessPoint") }
    static var parameters: [OSSParameter<Self>] { [.query("max-keys", \.maxKeys), .query("continuation-token", \.continuationToken)] }

    func validate() throws {
        if let maxKeys, !(1...1000).contains(maxKeys) {
            throw OSSClientError.invalidArgument("ListAccessPoints: max-keys is 1 to 1000, not \(maxKeys)")
        }
    }
}

extension OSSCreateAccessPointResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var accessPointArn: String
        var alias: String
        enum CodingKeys: String, CodingKey { case accessPointArn = "AccessPointArn", alias = "Alias" }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let d = try await response.xml(Document.self, root: "CreateAccessPointResult")
        return Self(accessPointArn: d.accessPointArn, alias: d.alias, requestId: response.requestId)
    }
}

extension OSSGetAccessPointResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(accessPoint: try await response.xml(OSSAccessPoint.self, root: "GetAccessPointResult"), requestId: response.requestId)
    }
}

extension OSSListAccessPointsResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var accessPoints: AccessPoints?
        var accountId: String?
        var maxKeys: Int?
        var isTruncated: Bool?
        var nextContinuationToken: String?
        struct AccessPoints: Decodable {
            var items: [OSSAccessPoint]
            enum CodingKeys: String, CodingKey { case items = "AccessPoint" }
        }
        enum CodingKeys: String, CodingKey {
            case accessPoints = "AccessPoints", accountId = "AccountId", maxKeys = "MaxKeys", isTruncated = "IsTruncated"
            case nextContinuationToken = "NextContinuationToken"
        }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let d = try await response.xml(Document.self, root: "ListAccessPointsResult")
        return Self(
            accessPoints: d.accessPoints?.items ?? [], accountId: d.accountId, maxKeys: d.maxKeys, isTruncated: d.isTruncated ?? false,
            nextContinuationToken: d.nextContinuationToken.flatMap { $0.isEmpty ? nil : $0 }, requestId: response.requestId)
    }
}
