import AliyunOSS
import OSSXML

/// The families OSS serves with calls of their own rather than one document under a sub-resource: replication
/// rules, CNAME domains, access points and their policies, redundancy transition tasks, meta query and the policy
/// status. Each maps `oss bucket-config` actions onto its SDK calls; what goes in and comes out is OSS's XML
/// document (or JSON with the same names), as for the other families.
enum CallFamily: String, CaseIterable {
    case replication, cname
    case accessPoint = "access-point", accessPointPolicy = "access-point-policy"
    case redundancyTransition = "redundancy-transition", metaQuery = "meta-query", policyStatus = "policy-status"

    /// The actions, each with what it takes.
    var actions: [String: BucketConfig.ActionShape] {
        switch self {
        case .replication:
            return ["get": .init(), "put": .init(file: .required), "delete": .init(name: .required), "location": .init(),
                    "progress": .init(name: .required)]
        case .cname:
            return ["get": .init(), "token": .init(name: .required), "put": .init(name: .required, file: .optional),
                    "delete": .init(name: .required)]
        case .accessPoint:
            return ["get": .init(name: .optional), "put": .init(name: .required, file: .optional), "delete": .init(name: .required)]
        case .accessPointPolicy:
            return ["get": .init(name: .required), "put": .init(name: .required, file: .required), "delete": .init(name: .required)]
        case .redundancyTransition:
            return ["get": .init(name: .optional), "put": .init(), "delete": .init(name: .required)]
        case .metaQuery:
            return ["get": .init(), "open": .init(), "query": .init(file: .required), "close": .init()]
        case .policyStatus:
            return ["get": .init()]
        }
    }

    /// What `--name` names in this family, for help and errors.
    var nameMeaning: String? {
        switch self {
        case .replication: "the rule ID"
        case .cname: "the domain"
        case .accessPoint, .accessPointPolicy: "the access point"
        case .redundancyTransition: "the task ID"
        case .metaQuery, .policyStatus: nil
        }
    }

    /// Checks FILE (the documents are parsed before any request) and runs `action`.
    func run(_ action: String, name: String?, input: [UInt8]?, json: Bool, bucket: String, client: OSSClient) async throws {
        let name = name ?? ""
        switch (self, action) {
        case (.replication, "get"):
            try show(Rules(rules: try await client.getBucketReplication(bucketName: bucket).rules), "ReplicationConfiguration", json)
        case (.replication, "put"):
            let rules = try parse(Rules.self, input, root: "ReplicationConfiguration").rules
            guard !rules.isEmpty else { throw CLIFailure(.clientError, "the ReplicationConfiguration document has no Rule") }
            for rule in rules {
                let id = try await client.putBucketReplication(rule, bucketName: bucket).ruleId ?? rule.id ?? "-"
                say(id)
                printError("added the replication rule \(id) to oss://\(bucket)")
            }
        case (.replication, "delete"):
            try await client.deleteBucketReplication(ruleId: name, bucketName: bucket)
            printError("deleted the replication rule \(name) of oss://\(bucket)")
        case (.replication, "location"):
            let locations = try await client.getBucketReplicationLocation(bucketName: bucket).locations
            try show(Locations(locations: locations), "ReplicationLocation", json)
        case (.replication, "progress"):
            let rules = try await client.getBucketReplicationProgress(ruleId: name, bucketName: bucket).rules
            try show(ProgressRules(rules: rules.map(ProgressRule.init)), "ReplicationProgress", json)

        case (.cname, "get"):
            let list = try await client.listCname(bucketName: bucket)
            try show(CnameList(bucket: list.bucket, owner: list.owner, cnames: list.cnames), "ListCnameResult", json)
        case (.cname, "token"):
            let token = try await client.createCnameToken(domain: name, bucketName: bucket)
            try show(CnameToken(bucket: token.bucket, cname: token.cname, token: token.token, expireTime: token.expireTime), "CnameToken", json)
        case (.cname, "put"):
            let certificate = try input.map { try parse(OSSCnameCertificateConfiguration.self, $0, root: "CertificateConfiguration") }
            try await client.putCname(domain: name, certificate: certificate, bucketName: bucket)
            printError("bound \(name) to oss://\(bucket)")
        case (.cname, "delete"):
            try await client.deleteCname(domain: name, bucketName: bucket)
            printError("unbound \(name) from oss://\(bucket)")

        case (.accessPoint, "get") where name.isEmpty:
            var all: [OSSAccessPoint] = []
            var token: String?
            repeat {
                let page = try await client.listAccessPoints(bucketName: bucket, continuationToken: token)
                all += page.accessPoints
                token = page.isTruncated ? page.nextContinuationToken : nil
            } while token != nil
            try show(AccessPoints(accessPoints: .init(accessPoints: all)), "ListAccessPointsResult", json)
        case (.accessPoint, "get"):
            try show(try await client.getAccessPoint(name: name, bucketName: bucket).accessPoint, "GetAccessPointResult", json)
        case (.accessPoint, "put"):
            let request = try input.map { try parse(AccessPointRequest.self, $0, root: "CreateAccessPointConfiguration") }
            if let named = request?.accessPointName, named != name {
                throw CLIFailure(.clientError, "the document names the access point \(named), --name \(name)")
            }
            let created = try await client.createAccessPoint(
                name: name, networkOrigin: request?.networkOrigin ?? "internet", vpcId: request?.vpcConfiguration?.vpcId,
                bucketName: bucket)
            say(created.alias)
            printError("created the access point \(name) of oss://\(bucket): \(created.accessPointArn), alias \(created.alias)")
        case (.accessPoint, "delete"):
            try await client.deleteAccessPoint(name: name, bucketName: bucket)
            printError("deleted the access point \(name) of oss://\(bucket)")

        case (.accessPointPolicy, "get"):
            say(try await client.getAccessPointPolicy(accessPointName: name, bucketName: bucket).policy)
        case (.accessPointPolicy, "put"):
            try await client.putAccessPointPolicy(String(decoding: input ?? [], as: UTF8.self), accessPointName: name, bucketName: bucket)
            printError("put the policy of the access point \(name) of oss://\(bucket)")
        case (.accessPointPolicy, _):
            try await client.deleteAccessPointPolicy(accessPointName: name, bucketName: bucket)
            printError("deleted the policy of the access point \(name) of oss://\(bucket)")

        case (.redundancyTransition, "get") where name.isEmpty:
            let tasks = try await client.listBucketDataRedundancyTransition(bucketName: bucket).transitions
            try show(Transitions(transitions: tasks), "ListBucketDataRedundancyTransition", json)
        case (.redundancyTransition, "get"):
            let task = try await client.getBucketDataRedundancyTransition(taskId: name, bucketName: bucket).transition
            try show(task, "BucketDataRedundancyTransition", json)
        case (.redundancyTransition, "put"):
            let id = try await client.createBucketDataRedundancyTransition(bucketName: bucket).taskId
            say(id)
            printError("started the redundancy transition \(id) of oss://\(bucket) to ZRS")
        case (.redundancyTransition, _):
            try await client.deleteBucketDataRedundancyTransition(taskId: name, bucketName: bucket)
            printError("deleted the redundancy transition \(name) of oss://\(bucket)")

        case (.metaQuery, "get"):
            try show(try await client.getMetaQueryStatus(bucketName: bucket).status, "MetaQueryStatus", json)
        case (.metaQuery, "open"):
            try await client.openMetaQuery(bucketName: bucket)
            printError("opened the meta query of oss://\(bucket)")
        case (.metaQuery, "query"):
            let query = try parse(OSSMetaQuery.self, input, root: "MetaQuery")
            let found = try await client.doMetaQuery(query, bucketName: bucket)
            let files = found.files.isEmpty ? nil : Found.Files(files: found.files)
            let aggregations = found.aggregations.isEmpty ? nil : Found.Aggregations(aggregations: found.aggregations)
            try show(Found(nextToken: found.nextToken, files: files, aggregations: aggregations), "MetaQuery", json)
        case (.metaQuery, _):
            try await client.closeMetaQuery(bucketName: bucket)
            printError("closed the meta query of oss://\(bucket)")

        default:
            try show(PolicyStatus(isPublic: try await client.getBucketPolicyStatus(bucketName: bucket).isPublic), "PolicyStatus", json)
        }
    }

    /// Reads FILE (XML, or JSON standing for it) as the document `root`; one that is not is a client error.
    private func parse<Document: Decodable>(_ type: Document.Type, _ input: [UInt8]?, root: String) throws -> Document {
        do {
            return try OSSXMLDecoder().decode(type, from: try BucketConfig.xmlInput(input ?? [], root: root), root: root)
        } catch let error as OSSXMLError {
            throw CLIFailure(.clientError, "not a \(root) document: \(error)")
        }
    }

    private func show(_ value: some Encodable, _ root: String, _ json: Bool) throws {
        try BucketConfig.show(value, json: json) { try OSSXMLEncoder().encode($0, root: root) }
    }
}

// The documents these families answer with, under OSS's element names.

private struct Rules: Codable {
    var rules: [OSSReplicationRule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }
}

private struct Locations: Encodable {
    var locations: [String]
    enum CodingKeys: String, CodingKey { case locations = "Location" }
}

private struct ProgressRules: Encodable {
    var rules: [ProgressRule]
    enum CodingKeys: String, CodingKey { case rules = "Rule" }
}

/// A rule's elements followed by its `<Progress>`.
private struct ProgressRule: Encodable {
    var progress: OSSReplicationProgress

    init(_ progress: OSSReplicationProgress) { self.progress = progress }

    func encode(to encoder: any Encoder) throws {
        try progress.rule.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Progress(historicalObject: progress.historicalObject, newObject: progress.newObject), forKey: .progress)
    }

    struct Progress: Encodable {
        var historicalObject: String?
        var newObject: String?
        enum CodingKeys: String, CodingKey { case historicalObject = "HistoricalObject", newObject = "NewObject" }
    }

    enum CodingKeys: String, CodingKey { case progress = "Progress" }
}

private struct CnameList: Encodable {
    var bucket: String
    var owner: String
    var cnames: [OSSCnameInfo]
    enum CodingKeys: String, CodingKey { case bucket = "Bucket", owner = "Owner", cnames = "Cname" }
}

private struct CnameToken: Encodable {
    var bucket: String
    var cname: String
    var token: String
    var expireTime: String
    enum CodingKeys: String, CodingKey { case bucket = "Bucket", cname = "Cname", token = "Token", expireTime = "ExpireTime" }
}

/// `<CreateAccessPointConfiguration>`, as CreateAccessPoint takes it.
private struct AccessPointRequest: Decodable {
    var accessPointName: String?
    var networkOrigin: String?
    var vpcConfiguration: OSSAccessPoint.VpcConfiguration?
    enum CodingKeys: String, CodingKey {
        case accessPointName = "AccessPointName", networkOrigin = "NetworkOrigin", vpcConfiguration = "VpcConfiguration"
    }
}

private struct AccessPoints: Encodable {
    var accessPoints: List
    struct List: Encodable {
        var accessPoints: [OSSAccessPoint]
        enum CodingKeys: String, CodingKey { case accessPoints = "AccessPoint" }
    }
    enum CodingKeys: String, CodingKey { case accessPoints = "AccessPoints" }
}

private struct Transitions: Encodable {
    var transitions: [OSSDataRedundancyTransition]
    enum CodingKeys: String, CodingKey { case transitions = "BucketDataRedundancyTransition" }
}

private struct Found: Encodable {
    var nextToken: String?
    var files: Files?
    var aggregations: Aggregations?
    struct Files: Encodable {
        var files: [OSSMetaQueryFile]
        enum CodingKeys: String, CodingKey { case files = "File" }
    }
    struct Aggregations: Encodable {
        var aggregations: [OSSMetaQueryAggregationResult]
        enum CodingKeys: String, CodingKey { case aggregations = "Aggregation" }
    }
    enum CodingKeys: String, CodingKey { case nextToken = "NextToken", files = "Files", aggregations = "Aggregations" }
}

private struct PolicyStatus: Encodable {
    var isPublic: Bool
    enum CodingKeys: String, CodingKey { case isPublic = "IsPublic" }
}
