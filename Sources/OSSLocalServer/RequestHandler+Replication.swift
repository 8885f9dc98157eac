import Foundation
import NIOHTTP1
import OSSSigning
import OSSXML

/// Cross-region replication rules: stored, checked and returned (nothing is copied; the local server has one
/// region). `POST ?replication&comp=add` adds one rule and names it in `x-oss-replication-rule-id`,
/// `POST ?replication&comp=delete` removes the rule its `<ReplicationRules><ID>` names, `GET ?replication` lists them,
/// `GET ?replicationLocation` names the regions a destination may be in, `GET ?replicationProgress&rule-id=` reports a
/// rule's progress (no historical object copied, new objects current as of now).
extension RequestHandler {
    /// Regions a destination bucket may be in, as GetBucketReplicationLocation lists them.
    static let replicationLocations = [
        "oss-cn-beijing", "oss-cn-hangzhou", "oss-cn-shanghai", "oss-cn-shenzhen", "oss-cn-hongkong", "oss-ap-southeast-1",
        "oss-eu-central-1", "oss-us-west-1",
    ]

    func bucketReplication(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws
        -> ServerResponse
    {
        let bucket = try requireBucket(context)
        let subresource = "replication"
        switch operation {
        case .putBucketReplication:
            let document = try await configurationBody(
                ReplicationDocument.self, root: ReplicationDocument.root, context: context, reader: reader)
            guard document.rules.count == 1, var rule = document.rules.first else {
                throw LocalOSSError.malformedXML("PutBucketReplication adds exactly one Rule.")
            }
            try await ReplicationDocument.check(rule, ConfigurationCheck(store: store, bucket: bucket))
            let id = rule.id.flatMap { $0.isEmpty ? nil : $0 } ?? UUID().uuidString.lowercased()
            rule.id = id
            rule.status = "starting"
            rule.action = rule.action ?? "ALL"
            rule.historicalObjectReplication = rule.historicalObjectReplication ?? "enabled"
            let added = rule
            try await updateConfigurationEntries(bucket, subresource, ReplicationDocument.Rule.self) { entries in
                guard !entries.contains(where: { $0.name == id }) else {
                    throw LocalOSSError.invalidArgument("A replication rule with this ID exists.", name: "ID", value: id)
                }
                guard !entries.contains(where: { $0.entry.destination.bucket == added.destination.bucket }) else {
                    throw LocalOSSError(
                        409, "ReplicationRuleAlreadyExists", "A replication rule to this destination bucket exists.",
                        fields: [("Bucket", added.destination.bucket)])
                }
                guard entries.count < ReplicationDocument.maximumRules else {
                    throw LocalOSSError.invalidArgument("A bucket has at most \(ReplicationDocument.maximumRules) replication rules.", name: "Rule")
                }
                entries.append(ConfigurationEntry(name: id, entry: added))
            }
            var headers = HTTPHeaders()
            headers.add(name: "x-oss-replication-rule-id", value: id)
            return ServerResponse(status: .ok, headers: headers)
        case .getBucketReplication:
            let rules = try await configurationEntries(bucket, subresource, ReplicationDocument.Rule.self)
            guard !rules.isEmpty else {
                throw LocalOSSError(
                    404, "NoSuchReplicationConfiguration", "The replication configuration does not exist.",
                    fields: [("BucketName", bucket)])
            }
            return .xml(try OSSXMLEncoder().encode(ReplicationDocument(rules: rules.map(\.entry)), root: ReplicationDocument.root))
        case .deleteBucketReplication:
            let document = try await configurationBody(
                ReplicationRulesDocument.self, root: ReplicationRulesDocument.root, context: context, reader: reader)
            guard document.ids.count == 1, let id = document.ids.first, !id.isEmpty else {
                throw LocalOSSError.malformedXML("DeleteBucketReplication names exactly one rule ID.")
            }
            try await updateConfigurationEntries(bucket, subresource, ReplicationDocument.Rule.self) { entries in
                guard entries.contains(where: { $0.name == id }) else { throw Self.noSuchRule(id) }
                entries.removeAll { $0.name == id }
            }
            return ServerResponse(status: .ok)
        case .getBucketReplicationLocation:
            _ = try await store.bucket(bucket)
            var w = OSSXMLWriter()
            w.open("ReplicationLocation")
            for location in Self.replicationLocations where location != self.location { w.element("Location", location) }
            w.close("ReplicationLocation")
            return .xml(w.output)
        default:
            let id = try requiredParameter("rule-id", context)
            guard let rule = try await configurationEntries(bucket, subresource, ReplicationDocument.Rule.self)
                .first(where: { $0.name == id })?.entry
            else { throw Self.noSuchRule(id) }
            let progress = ReplicationProgressRule(
                rule: rule,
                progress: .init(
                    historicalObject: rule.historicalObjectReplication == "enabled" ? "0.00" : nil,
                    newObject: OSSDateFormat.rfc1123(context.now)))
            return .xml(try OSSXMLEncoder().encode(ReplicationProgressDocument(rules: [progress]), root: "ReplicationProgress"))
        }
    }

    private static func noSuchRule(_ id: String) -> LocalOSSError {
        LocalOSSError(404, "NoSuchReplicationRule", "The replication rule does not exist.", fields: [("RuleId", id)])
    }
}

/// `<ReplicationProgress><Rule>…<Progress>…</Progress></Rule></…>`.
private struct ReplicationProgressDocument: Encodable {
    var rules: [ReplicationProgressRule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }
}

private struct ReplicationProgressRule: Encodable {
    var rule: ReplicationDocument.Rule
    var progress: Progress

    struct Progress: Encodable {
        var historicalObject: String?
        var newObject: String
        enum CodingKeys: String, CodingKey { case historicalObject = "HistoricalObject", newObject = "NewObject" }
    }

    enum CodingKeys: String, CodingKey { case progress = "Progress" }

    /// The rule's own elements, then `<Progress>`.
    func encode(to encoder: any Encoder) throws {
        try rule.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(progress, forKey: .progress)
    }
}
