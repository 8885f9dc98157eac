import Foundation
import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

/// Access points (Create, Get, List per bucket and per account, Delete; Put, Get, Delete AccessPointPolicy) with
/// OSS's rules: a name of 3 to 19 lowercase letters, digits and hyphens, not starting or ending with a hyphen nor
/// ending with `-ossalias`, unique in the account; at most 100 a bucket and 1,000 an account; `internet` or `vpc`
/// (with a VPC id) origin; a policy that parses as a bucket policy does. Stored, checked and returned: requests
/// through an access point's alias are not routed (the alias is not a bucket here).
extension RequestHandler {
    static let accessPointSubresource = "accessPoint"
    static let accessPointPolicySubresource = "accessPointPolicy"
    static let maximumAccessPointsPerBucket = 100
    static let maximumAccessPointsPerAccount = 1000

    func accessPoint(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        if operation == .listAccessPoints { return try await listAccessPoints(context) }
        let bucket = try requireBucket(context)
        switch operation {
        case .createAccessPoint:
            let request = try await configurationBody(
                AccessPointRequest.self, root: "CreateAccessPointConfiguration", context: context, reader: reader)
            let name = try Self.checkedAccessPointName(request.accessPointName)
            guard request.networkOrigin == "internet" || request.networkOrigin == "vpc" else {
                throw LocalOSSError.invalidArgument("NetworkOrigin is internet or vpc.", name: "NetworkOrigin", value: String(request.networkOrigin.prefix(16)))
            }
            let vpcId = request.vpcConfiguration?.vpcId.flatMap { $0.isEmpty ? nil : $0 }
            if request.networkOrigin == "vpc", vpcId == nil {
                throw LocalOSSError.invalidArgument("A vpc access point names its VpcId.", name: "VpcId")
            }
            let all = try await allAccessPoints()
            if all.contains(where: { $0.entry.accessPointName == name }) {
                throw LocalOSSError(409, "AccessPointAlreadyExists", "The access point already exists.", fields: [("AccessPointName", name)])
            }
            guard all.count < Self.maximumAccessPointsPerAccount else {
                throw LocalOSSError(400, "TooManyAccessPoints", "An account has at most \(Self.maximumAccessPointsPerAccount) access points.")
            }
            let suffix = String(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(26))
            let host = "\(name)-\(ownerId).oss-accesspoint.\(configuration.region)"
            let record = AccessPointRecord(
                accessPointName: name, bucket: bucket, accountId: ownerId, networkOrigin: request.networkOrigin,
                vpcConfiguration: .init(vpcId: vpcId), accessPointArn: "acs:oss:\(configuration.region):\(ownerId):accesspoint/\(name)",
                creationDate: String(Int(context.now.timeIntervalSince1970)), alias: "\(name)-\(suffix)-ossalias", status: "enable",
                endpoints: .init(publicEndpoint: host + ".aliyuncs.com", internalEndpoint: host + "-internal.aliyuncs.com"),
                publicAccessBlockConfiguration: .init(blockPublicAccess: true))
            try await updateConfigurationEntries(bucket, Self.accessPointSubresource, AccessPointRecord.self) { entries in
                guard !entries.contains(where: { $0.name == name }) else {
                    throw LocalOSSError(409, "AccessPointAlreadyExists", "The access point already exists.", fields: [("AccessPointName", name)])
                }
                guard entries.count < Self.maximumAccessPointsPerBucket else {
                    throw LocalOSSError(400, "TooManyAccessPoints", "A bucket has at most \(Self.maximumAccessPointsPerBucket) access points.")
                }
                entries.append(ConfigurationEntry(name: name, entry: record))
            }
            let created = CreatedAccessPoint(accessPointArn: record.accessPointArn, alias: record.alias)
            return .xml(try OSSXMLEncoder().encode(created, root: "CreateAccessPointResult"))
        case .getAccessPoint:
            let record = try await namedAccessPoint(bucket, context)
            return .xml(try OSSXMLEncoder().encode(record, root: "GetAccessPointResult"))
        case .deleteAccessPoint:
            let name = try await namedAccessPoint(bucket, context).accessPointName
            try await updateConfigurationEntries(bucket, Self.accessPointSubresource, AccessPointRecord.self) { $0.removeAll { $0.name == name } }
            try await setAccessPointPolicy(nil, name, bucket: bucket)
            return ServerResponse(status: .noContent)
        case .putAccessPointPolicy:
            let name = try await namedAccessPoint(bucket, context).accessPointName
            let body = try await reader.collect(limit: BucketPolicy.maximumSize + 1)
            try verifyContentMD5(context, body: body)
            let bytes = Array(body.readableBytesView)
            guard bytes.count <= BucketPolicy.maximumSize else {
                throw LocalOSSError(400, "InvalidPolicyDocument", "A policy is at most \(BucketPolicy.maximumSize) bytes.")
            }
            do { _ = try BucketPolicy(json: bytes) } catch { throw LocalOSSError(400, "InvalidPolicyDocument", error.message) }
            try await setAccessPointPolicy(String(decoding: bytes, as: UTF8.self), name, bucket: bucket)
            return ServerResponse(status: .ok)
        case .getAccessPointPolicy:
            let name = try await namedAccessPoint(bucket, context).accessPointName
            let policies = try await configurationEntries(bucket, Self.accessPointPolicySubresource, String.self)
            guard let policy = policies.first(where: { $0.name == name })?.entry else {
                throw LocalOSSError(404, "NoSuchAccessPointPolicy", "The access point policy does not exist.", fields: [("AccessPointName", name)])
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            return ServerResponse(status: .ok, headers: headers, body: .buffer(ByteBuffer(string: policy)))
        default:
            try await setAccessPointPolicy(nil, try await namedAccessPoint(bucket, context).accessPointName, bucket: bucket)
            return ServerResponse(status: .noContent)
        }
    }

    /// Sets (or with `nil` removes) an access point's policy, kept under `config/accessPointPolicy` by name.
    private func setAccessPointPolicy(_ policy: String?, _ name: String, bucket: String) async throws {
        try await updateConfigurationEntries(bucket, Self.accessPointPolicySubresource, String.self) { entries in
            entries.removeAll { $0.name == name }
            if let policy { entries.append(ConfigurationEntry(name: name, entry: policy)) }
        }
    }

    private static func noSuchAccessPoint(_ name: String) -> LocalOSSError {
        LocalOSSError(404, "NoSuchAccessPoint", "The access point does not exist.", fields: [("AccessPointName", name)])
    }

    static func checkedAccessPointName(_ name: String) throws(LocalOSSError) -> String {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D }
        guard (3...19).contains(bytes.count), allowed, bytes.first != 0x2D, bytes.last != 0x2D, !name.hasSuffix("-ossalias") else {
            throw .invalidArgument("The access point name is not valid.", name: "AccessPointName", value: String(name.prefix(32)))
        }
        return name
    }

    /// The access point `x-oss-access-point-name` names on `bucket`.
    private func namedAccessPoint(_ bucket: String, _ context: RequestContext) async throws -> AccessPointRecord {
        guard let name = context.header("x-oss-access-point-name"), !name.isEmpty else {
            throw LocalOSSError.invalidArgument("The x-oss-access-point-name header is required.", name: "x-oss-access-point-name")
        }
        let entries = try await configurationEntries(bucket, Self.accessPointSubresource, AccessPointRecord.self)
        guard let found = entries.first(where: { $0.name == name }) else { throw Self.noSuchAccessPoint(name) }
        return found.entry
    }

    private func allAccessPoints(in bucket: String? = nil) async throws -> [ConfigurationEntry<AccessPointRecord>] {
        var all: [ConfigurationEntry<AccessPointRecord>] = []
        for record in await store.listBuckets() where bucket == nil || bucket == record.name {
            all += (try? await configurationEntries(record.name, Self.accessPointSubresource, AccessPointRecord.self)) ?? []
        }
        return all
    }

    /// ListAccessPoints: a bucket's (`/<bucket>?accessPoint`) or the account's (`/?accessPoint`), by name.
    private func listAccessPoints(_ context: RequestContext) async throws -> ServerResponse {
        if let bucket = context.bucket { _ = try await store.bucket(bucket) }
        var maxKeys = 1000
        if let text = context.query["max-keys"] {
            guard let value = Int(text), (1...1000).contains(value) else {
                throw LocalOSSError.invalidArgument("max-keys is 1 to 1000.", name: "max-keys", value: String(text.prefix(16)))
            }
            maxKeys = value
        }
        let token = context.query["continuation-token"] ?? ""
        let after = try await allAccessPoints(in: context.bucket).map(\.entry)
            .sorted { $0.accessPointName < $1.accessPointName }.filter { token.isEmpty || $0.accessPointName > token }
        let page = Array(after.prefix(maxKeys))
        let truncated = after.count > page.count
        let list = AccessPointList(
            isTruncated: truncated, nextContinuationToken: truncated ? page.last?.accessPointName : nil, accountId: ownerId,
            maxKeys: maxKeys, accessPoints: .init(items: page))
        return .xml(try OSSXMLEncoder().encode(list, root: "ListAccessPointsResult"))
    }
}

/// `<CreateAccessPointConfiguration>` as the server reads it.
private struct AccessPointRequest: Decodable {
    var accessPointName: String
    var networkOrigin: String
    var vpcConfiguration: VpcConfiguration?
    struct VpcConfiguration: Codable, Sendable {
        var vpcId: String?
        enum CodingKeys: String, CodingKey { case vpcId = "VpcId" }
    }
    enum CodingKeys: String, CodingKey {
        case accessPointName = "AccessPointName", networkOrigin = "NetworkOrigin", vpcConfiguration = "VpcConfiguration"
    }
}

/// An access point as stored and as GetAccessPoint and ListAccessPoints describe it (its policy is kept apart).
private struct AccessPointRecord: Codable, Sendable {
    var accessPointName: String
    var bucket: String
    var accountId: String
    var networkOrigin: String
    var vpcConfiguration: AccessPointRequest.VpcConfiguration
    var accessPointArn: String
    /// Seconds since 1970, as OSS writes it.
    var creationDate: String
    var alias: String
    var status: String
    var endpoints: Endpoints
    var publicAccessBlockConfiguration: Block

    struct Endpoints: Codable, Sendable {
        var publicEndpoint: String
        var internalEndpoint: String
        enum CodingKeys: String, CodingKey { case publicEndpoint = "PublicEndpoint", internalEndpoint = "InternalEndpoint" }
    }

    struct Block: Codable, Sendable {
        var blockPublicAccess: Bool
        enum CodingKeys: String, CodingKey { case blockPublicAccess = "BlockPublicAccess" }
    }

    enum CodingKeys: String, CodingKey {
        case accessPointName = "AccessPointName", bucket = "Bucket", accountId = "AccountId", networkOrigin = "NetworkOrigin"
        case vpcConfiguration = "VpcConfiguration", accessPointArn = "AccessPointArn", creationDate = "CreationDate"
        case alias = "Alias", status = "Status", endpoints = "Endpoints", publicAccessBlockConfiguration = "PublicAccessBlockConfiguration"
    }
}

private struct CreatedAccessPoint: Encodable {
    var accessPointArn: String
    var alias: String
    enum CodingKeys: String, CodingKey { case accessPointArn = "AccessPointArn", alias = "Alias" }
}

private struct AccessPointList: Encodable {
    var isTruncated: Bool
    var nextContinuationToken: String?
    var accountId: String
    var maxKeys: Int
    var accessPoints: AccessPoints
    struct AccessPoints: Encodable {
        var items: [AccessPointRecord]
        enum CodingKeys: String, CodingKey { case items = "AccessPoint" }
    }
    enum CodingKeys: String, CodingKey {
        case isTruncated = "IsTruncated", nextContinuationToken = "NextContinuationToken", accountId = "AccountId"
        case maxKeys = "MaxKeys", accessPoints = "AccessPoints"
    }
}

extension Router {
    /// The access point calls on a bucket.
    static func accessPointOperation(_ context: RequestContext) -> LocalOSSOperation? {
        let q = context.query
        switch (context.method, q["accessPoint"] != nil, q["accessPointPolicy"] != nil) {
        case ("PUT", true, _): return .createAccessPoint
        case ("GET", true, _): return context.header("x-oss-access-point-name") == nil ? .listAccessPoints : .getAccessPoint
        case ("DELETE", true, _): return .deleteAccessPoint
        case ("PUT", _, true): return .putAccessPointPolicy
        case ("GET", _, true): return .getAccessPointPolicy
        case ("DELETE", _, true): return .deleteAccessPointPolicy
        default: return nil
        }
    }

    /// Listings across the account's buckets (`GET /?accessPoint`, `GET /?redundancyTransition` on the service).
    static func accountListingOperation(_ method: String, _ q: [String: String]) -> LocalOSSOperation? {
        guard method == "GET" else { return nil }
        if q["accessPoint"] != nil { return .listAccessPoints }
        return q["redundancyTransition"] != nil ? .listUserDataRedundancyTransition : nil
    }
}
