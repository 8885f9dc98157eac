#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

/// Cross-region replication: rules are added and removed one at a time (`POST ?replication&comp=add|delete`), not
/// put as a whole, so its calls are declared here rather than as a family.
extension OSSClient {
    /// PutBucketReplication (`POST /?replication&comp=add`): adds `rule`; the result names its ID (OSS's own when
    /// the rule has none).
    public func putBucketReplication(_ rule: OSSReplicationRule, bucketName: String) async throws -> OSSPutBucketReplicationResult {
        guard !rule.destination.bucket.isEmpty, !rule.destination.location.isEmpty else {
            throw OSSClientError.invalidArgument("PutBucketReplication: a rule names its destination bucket and location")
        }
        return try await perform(
            OSSBucketQueryCall(
                OSSAPI("PutBucketReplication", "POST", subresource: "replication"), bucket: bucketName, query: ["comp": "add"],
                body: ReplicationDocument(rules: [rule]), as: OSSPutBucketReplicationResult.self))
    }

    /// GetBucketReplication (`GET /?replication`): every rule with its status; `NoSuchReplicationConfiguration`
    /// when there is none.
    public func getBucketReplication(bucketName: String) async throws -> OSSGetBucketReplicationResult {
        try await perform(
            OSSBucketQueryCall(OSSAPI("GetBucketReplication", "GET", subresource: "replication"), bucket: bucketName, as: OSSGetBucketReplicationResult.self))
    }

    /// DeleteBucketReplication (`POST /?replication&comp=delete`): stops and removes the rule `ruleId`.
    @discardableResult
    public func deleteBucketReplication(ruleId: String, bucketName: String) async throws -> OSSEmptyResult {
        guard !ruleId.isEmpty else { throw OSSClientError.invalidArgument("DeleteBucketReplication: the rule ID is not empty") }
        return try await perform(
            OSSBucketQueryCall(
                OSSAPI("DeleteBucketReplication", "POST", subresource: "replication"), bucket: bucketName, query: ["comp": "delete"],
                body: RulesDocument(ids: [ruleId]), as: OSSEmptyResult.self))
    }

    /// GetBucketReplicationLocation (`GET /?replicationLocation`): the regions a destination bucket may be in.
    public func getBucketReplicationLocation(bucketName: String) async throws -> OSSGetBucketReplicationLocationResult {
        try await perform(
            OSSBucketQueryCall(
                OSSAPI("GetBucketReplicationLocation", "GET", subresource: "replicationLocation"), bucket: bucketName,
                as: OSSGetBucketReplicationLocationResult.self))
    }

    /// GetBucketReplicationProgress (`GET /?replicationProgress&rule-id=`): how far the rule has got.
    public func getBucketReplicationProgress(ruleId: String, bucketName: String) async throws -> OSSGetBucketReplicationProgressResult {
        guard !ruleId.isEmpty else { throw OSSClientError.invalidArgument("GetBucketReplicationProgress: the rule ID is not empty") }
        return try await perform(
            OSSBucketQueryCall(
                OSSAPI("GetBucketReplicationProgress", "GET", subresource: "replicationProgress"), bucket: bucketName,
                query: ["rule-id": ruleId], as: OSSGetBucketReplicationProgressResult.self))
    }
}

/// The result of PutBucketReplication.
public struct OSSPutBucketReplicationResult: Sendable {
    /// `x-oss-replication-rule-id`: the rule's ID.
    public var ruleId: String?
    public var requestId: String
}

/// The result of GetBucketReplication.
public struct OSSGetBucketReplicationResult: Sendable {
    public var rules: [OSSReplicationRule]
    public var requestId: String
}

/// The result of GetBucketReplicationLocation.
public struct OSSGetBucketReplicationLocationResult: Sendable {
    /// Regions, `oss-cn-beijing`.
    public var locations: [String]
    public var requestId: String
}

/// The result of GetBucketReplicationProgress.
public struct OSSGetBucketReplicationProgressResult: Sendable {
    public var rules: [OSSReplicationProgress]
    public var requestId: String
}

/// A rule with its progress (`<ReplicationProgress><Rule>`).
public struct OSSReplicationProgress: Decodable, Sendable, Hashable {
    public var rule: OSSReplicationRule
    /// The share of historical objects copied (`0.85`), when historical replication is enabled.
    public var historicalObject: String?
    /// New objects written before this time (`Thu, 24 Sep 2015 15:39:18 GMT`) are copied.
    public var newObject: String?

    public init(from decoder: any Decoder) throws {
        rule = try OSSReplicationRule(from: decoder)
        let progress = try decoder.container(keyedBy: ElementKey.self).decodeIfPresent(Progress.self, forKey: ElementKey("Progress"))
        historicalObject = progress?.historicalObject
        newObject = progress?.newObject
    }

    struct Progress: Decodable {
        var historicalObject: String?
        var newObject: String?
    }
}

/// `<ReplicationConfiguration><Rule>…</Rule></…>`.
private struct ReplicationDocument: OSSXMLDocument, Codable {
    static let root = "ReplicationConfiguration"
    var rules: [OSSReplicationRule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }
}

/// `<ReplicationRules><ID>…</ID></ReplicationRules>`.
private struct RulesDocument: OSSXMLDocument, Encodable {
    static let root = "ReplicationRules"
    var ids: [String]
    enum CodingKeys: String, CodingKey { case ids = "ID" }
}

extension OSSPutBucketReplicationResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        try await response.body.drain()
        return Self(ruleId: response.headers["x-oss-replication-rule-id"], requestId: response.requestId)
    }
}

extension OSSGetBucketReplicationResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(rules: try await response.xml(ReplicationDocument.self).rules, requestId: response.requestId)
    }
}

extension OSSGetBucketReplicationLocationResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(locations: try await response.xml(Document.self).locations, requestId: response.requestId)
    }

    struct Document: OSSXMLDocument, Decodable {
        static let root = "ReplicationLocation"
        var locations: [String]
        enum CodingKeys: String, CodingKey { case locations = "Location" }
    }
}

extension OSSGetBucketReplicationProgressResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(rules: try await response.xml(Document.self).rules, requestId: response.requestId)
    }

    struct Document: OSSXMLDocument, Decodable {
        static let root = "ReplicationProgress"
        var rules: [OSSReplicationProgress]
        enum CodingKeys: String, CodingKey { case rules = "Rule" }
    }
}
