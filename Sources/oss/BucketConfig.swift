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

    static var familyNames: String { (Array(families.keys) + Array(namedFamilies.keys)).sorted().joined(separator: ", ") }

    @Argument(help: "The bucket, as oss://bucket.") var bucket: String
    @Argument(help: "The configuration family.") var family: String
    @Argument(help: "get, put or delete.") var action = "get"
    @Argument(help: "put: the document to send (- for standard input).") var file: String?
    @Flag(help: "get: print JSON instead of XML.") var json = false
    @Option(help: "inventory, style: the document's name (inventoryId, styleName).") var name: String?
    @OptionGroup var connection: ConnectionOptions

    func validate() throws {
        guard Self.families[family] != nil || Self.namedFamilies[family] != nil else {
            throw ValidationError("unknown family \(family): one of \(Self.familyNames)")
        }
        if Self.namedFamilies[family] != nil, action != "get", name == nil {
            throw ValidationError("\(family) \(action) needs --name")
        }
        if Self.namedFamilies[family] == nil, name != nil { throw ValidationError("--name applies to inventory and style") }
        guard ["get", "put", "delete"].contains(action) else { throw ValidationError("the action is get, put or delete, not \(action)") }
        guard (action == "put") == (file != nil) else { throw ValidationError("put takes a FILE; get and delete take none") }
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
            try await withClient(connection) { client in
                if let named {
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
    private static func show<Value: Encodable>(_ value: Value, json: Bool, xml: (Value) throws -> String) throws {
        guard json else { return say(try xml(value)) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        encoder.keyEncodingStrategy = .custom { path in ElementKey(path.last.map { elementName($0.stringValue) } ?? "") }
        say(String(decoding: try encoder.encode(value), as: UTF8.self))
    }

    /// FILE's bytes as XML: JSON (`{...}`) is read as the XML document it stands for.
    private static func xmlInput(_ bytes: [UInt8], root: String) throws -> [UInt8] {
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
