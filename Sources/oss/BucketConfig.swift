import AliyunOSS
import ArgumentParser

import Foundation

struct BucketConfig: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bucket-config",
        abstract: "Read, write or delete a bucket configuration: oss bucket-config oss://bucket FAMILY [get|put FILE|delete]",
        discussion: helpProse("""
            FAMILY is one of \(Self.familyNames). get prints the configuration as
            OSS's XML document (--json: as JSON with the same names, {"CORSRule": [{"AllowedOrigin": ["*"], ...}]});
            put reads FILE (- for standard input) as either, and checks it before sending; delete removes
            it (referer, request-payment and transfer-acceleration have no delete: put the default back). The policy
            is JSON in and out, sent as it is. inventory and style keep several documents: --name picks one for
            put, get and delete, and get without --name lists them all.

            Families with calls of their own (--name picks the entry):

              replication: get (every rule), put FILE (adds each <Rule> of a ReplicationConfiguration, printing
                its ID), delete --name ID, location (the regions a destination may be in), progress --name ID.

              cname: get (the bound domains), token --name DOMAIN (creates the ownership token, or shows the valid
                one), put --name DOMAIN [FILE] (binds it; FILE is a CertificateConfiguration), delete --name DOMAIN.

              access-point: get [--name NAME] (one, or all), put --name NAME [FILE] (creates it, printing its
                alias; FILE is a CreateAccessPointConfiguration: NetworkOrigin, VpcConfiguration), delete --name NAME.

              access-point-policy: get, put FILE, delete, each --name NAME; the policy is JSON, sent as it is.

              redundancy-transition: put (starts converting the bucket to ZRS, printing the task ID), get [--name ID]
                (one task, or all), delete --name ID.

              meta-query: open (starts indexing), get (the index's state), query FILE (a MetaQuery document: the
                matching objects and aggregations), close (drops the index).

              policy-status: get (whether the bucket policy makes the bucket public).
            """))

    /// The families by their command-line names; `nil` is the policy (JSON, with calls of its own).
    static let families: [String: (any OSSBucketConfiguration.Type)?] = [
        "cors": OSSCORSConfiguration.self, "lifecycle": OSSLifecycleConfiguration.self,
        "referer": OSSRefererConfiguration.self, "tags": OSSBucketTagging.self, "encryption": OSSBucketEncryption.self,
        "logging": OSSBucketLogging.self, "website": OSSWebsiteConfiguration.self,
        "request-payment": OSSRequestPaymentConfiguration.self,
        "transfer-acceleration": OSSTransferAccelerationConfiguration.self, "policy": nil,
        "public-access-block": OSSPublicAccessBlockConfiguration.self,
        "overwrite": OSSOverwriteConfiguration.self,
        "https-config": OSSHTTPSConfiguration.self, "access-monitor": OSSAccessMonitorConfiguration.self,
        "archive-direct-read": OSSArchiveDirectReadConfiguration.self, "resource-group": OSSBucketResourceGroup.self,
        "object-worm": OSSBucketObjectWormConfiguration.self,
    ]

    /// Families of named documents: `--name` picks one; get without it lists them.
    static let namedFamilies: [String: any OSSNamedBucketConfiguration.Type] = [
        "inventory": OSSInventoryConfiguration.self, "style": OSSImageStyle.self,
    ]

    static var familyNames: String {
        (Array(families.keys) + Array(namedFamilies.keys) + CallFamily.allCases.map(\.rawValue)).sorted().joined(separator: ", ")
    }

    @Argument(help: "The bucket, as oss://bucket.") var bucket: String
    @Argument(help: "The configuration family.") var family: String
    @Argument(help: "get, put or delete; token, location, progress, open, query or close where the family has them.")
    var action = "get"
    @Argument(help: "put, query: the document to send (- for standard input).") var file: String?
    @Flag(help: "get: print JSON instead of XML.") var json = false
    @Option(help: """
        Which entry: inventory, style: the document's name; replication: the rule ID; cname: the domain; \
        access-point, access-point-policy: the access point; redundancy-transition: the task ID.
        """)
    var name: String?
    @OptionGroup var connection: ConnectionOptions

    /// What an action takes: `--name` and FILE, each required, optional or refused.
    struct ActionShape {
        enum Need { case required, optional, refused }
        var name = Need.refused
        var file = Need.refused
    }

    /// The actions of `family` and what each takes; `nil` for an unknown family.
    static func actions(_ family: String) -> [String: ActionShape]? {
        if let calls = CallFamily(rawValue: family) { return calls.actions }
        if namedFamilies[family] != nil {
            return ["get": .init(name: .optional), "put": .init(name: .required, file: .required), "delete": .init(name: .required)]
        }
        guard families[family] != nil else { return nil }
        return ["get": .init(), "put": .init(file: .required), "delete": .init()]
    }

    func validate() throws {
        guard let actions = Self.actions(family) else {
            throw ValidationError("unknown family \(family): one of \(Self.familyNames)")
        }
        guard let shape = actions[action] else {
            throw ValidationError("the \(family) actions are \(actions.keys.sorted().joined(separator: ", ")), not \(action)")
        }
        let meaning = CallFamily(rawValue: family)?.nameMeaning ?? "the document's name"
        switch (shape.name, name) {
        case (.required, nil): throw ValidationError("\(family) \(action) needs --name (\(meaning))")
        case (.refused, _?): throw ValidationError("\(family) \(action) takes no --name")
        default: break
        }
        switch (shape.file, file) {
        case (.required, nil): throw ValidationError("\(family) \(action) takes a FILE")
        case (.refused, _?): throw ValidationError("\(family) \(action) takes no FILE")
        default: break
        }
    }

    func run() async throws {
        try await runCommand {
            let uri = try parseRemote(bucket, requireKey: false)
            guard uri.key.isEmpty else { throw CLIFailure(.clientError, "bucket-config takes a bucket, not an object: \(bucket)") }
            let name = uri.bucket
            let type = Self.families[family] ?? nil
            let input = try file.map(Self.read)
            let (action, json) = (action, json)
            let named = Self.namedFamilies[family]
            let entryName = self.name
            let calls = CallFamily(rawValue: family)
            try await withClient(connection) { client in
                if let calls {
                    try await calls.run(action, name: entryName, input: input, json: json, bucket: name, client: client)
                } else if let named {
                    try await Self.run(named, action, name: entryName, input: input, json: json, bucket: name, client: client)
                } else if let type {
                    try await Self.run(type, action, input: input, json: json, bucket: name, client: client)
                } else {
                    try await Self.policy(action, input: input, bucket: name, client: client)
                }
            }
        }
    }

    private static func run<Configuration: OSSBucketConfiguration>(
        _ type: Configuration.Type, _ action: String, input: [UInt8]?, json: Bool, bucket: String, client: OSSClient
    ) async throws {
        switch action {
        case "get":
            let configuration = try await client.getBucketConfiguration(OSSBucketConfigurationRequest<Configuration>(bucketName: bucket))
                .configuration
            try show(configuration, json: json) { try $0.xmlDocument() }
        case "put":
            let configuration = try Configuration(xmlDocument: try xmlInput(input ?? [], root: Configuration.family.root))
            try await client.putBucketConfiguration(OSSPutBucketConfigurationRequest(bucketName: bucket, configuration: configuration))
            printError("put the \(Configuration.family.subresource) configuration of oss://\(bucket)")
        default:
            guard let deletable = Configuration.self as? any OSSDeletableBucketConfiguration.Type else {
                throw CLIFailure(.clientError, "OSS has no delete for \(Configuration.family.subresource): put the default instead")
            }
            try await delete(deletable, bucket: bucket, client: client)
            printError("deleted the \(Configuration.family.subresource) configuration of oss://\(bucket)")
        }
    }

    private static func run<Configuration: OSSNamedBucketConfiguration>(
        _ type: Configuration.Type, _ action: String, name: String?, input: [UInt8]?, json: Bool, bucket: String,
        client: OSSClient
    ) async throws {
        switch (action, name) {
        case ("get", nil):
            for try await page in client.listBucketConfigurationsPaginator(type, bucketName: bucket) {
                for entry in page.configurations { try show(entry, json: json) { try Configuration.xmlDocument($0) } }
            }
        case ("get", let name?):
            try show(try await client.getBucketConfiguration(type, named: name, bucketName: bucket).configuration, json: json) {
                try Configuration.xmlDocument($0)
            }
        case ("put", let name?):
            let configuration = try Configuration(xmlDocument: try xmlInput(input ?? [], root: Configuration.entries.root))
            try await client.putBucketConfiguration(configuration, named: name, bucketName: bucket)
            printError("put the \(Configuration.entries.subresource) \(name) of oss://\(bucket)")
        default:
            let name = name ?? ""
            try await client.deleteBucketConfiguration(type, named: name, bucketName: bucket)
            printError("deleted the \(Configuration.entries.subresource) \(name) of oss://\(bucket)")
        }
    }

    /// Prints a configuration as XML, or JSON with OSS's element names.
    static func show<Value: Encodable>(_ value: Value, json: Bool, xml: (Value) throws -> String) throws {
        guard json else { return say(try xml(value)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .custom { path in ElementKey(path.last.map { elementName($0.stringValue) } ?? "") }
        say(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// FILE's bytes as XML: JSON (`{...}`) is read as the XML document it stands for.
    static func xmlInput(_ bytes: [UInt8], root: String) throws -> [UInt8] {
        guard bytes.first(where: { !$0.isASCIIWhitespace }) == UInt8(ascii: "{") else { return bytes }
        guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes)) else {
            throw CLIFailure(.clientError, "the \(root) document is not valid JSON")
        }
        return Array(object.xml(root).utf8)
    }

    private static func delete<Configuration: OSSDeletableBucketConfiguration>(
        _ type: Configuration.Type, bucket: String, client: OSSClient
    ) async throws {
        try await client.deleteBucketConfiguration(OSSBucketConfigurationRequest<Configuration>(bucketName: bucket))
    }

    private static func policy(_ action: String, input: [UInt8]?, bucket: String, client: OSSClient) async throws {
        switch action {
        case "get": say(try await client.getBucketPolicy(bucketName: bucket).policy)
        case "put":
            try await client.putBucketPolicy(String(decoding: input ?? [], as: UTF8.self), bucketName: bucket)
            printError("put the policy of oss://\(bucket)")
        default:
            try await client.deleteBucketPolicy(bucketName: bucket)
            printError("deleted the policy of oss://\(bucket)")
        }
    }

    private static func read(_ path: String) throws -> [UInt8] {
        if path == "-" { return Array(FileHandle.standardInput.readDataToEndOfFile()) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIFailure(.clientError, "cannot read \(path)")
        }
        return Array(data)
    }
}

/// An XML element name as OSS spells it: the coding key with its first letter upper-cased (`responseVary` →
/// `ResponseVary`), as the SDK's XML coder names elements.
private func elementName(_ key: String) -> String { key.prefix(1).uppercased() + key.dropFirst() }

private struct ElementKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A JSON configuration read as the XML document it stands for: an object's keys are elements, an array repeats its
/// key's element, a scalar is text.
private enum JSONValue: Decodable {
    case bool(Bool), number(String), string(String), array([JSONValue]), object([String: JSONValue]), null

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() { self = .null } else if let b = try? value.decode(Bool.self) { self = .bool(b) }
        else if let i = try? value.decode(Int64.self) { self = .number(String(i)) }
        else if let d = try? value.decode(Double.self) { self = .number(String(d)) }
        else if let s = try? value.decode(String.self) { self = .string(s) }
        else if let a = try? value.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try value.decode([String: JSONValue].self)) }
    }

    func xml(_ name: String) -> String {
        switch self {
        case .null: return ""
        case .bool(let b): return "<\(name)>\(b)</\(name)>"
        case .number(let n): return "<\(name)>\(n)</\(name)>"
        case .string(let text):
            let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
            return "<\(name)>\(escaped)</\(name)>"
        case .array(let items): return items.map { $0.xml(name) }.joined()
        case .object(let fields): return "<\(name)>" + fields.sorted { $0.key < $1.key }.map { $0.value.xml($0.key) }.joined() + "</\(name)>"
        }
    }
}

extension UInt8 {
    fileprivate var isASCIIWhitespace: Bool { self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09 }
}
