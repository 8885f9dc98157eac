#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

/// A family a bucket keeps several named documents of: inventories (`?inventory&inventoryId=`), image styles
/// (`?style&styleName=`). Put, get and delete name one; list returns all. Like ``OSSBucketConfiguration``, a new
/// family of this shape is a model and its ``entries`` line.
public protocol OSSNamedBucketConfiguration: Codable, Sendable {
    /// What Get and List answer for one document: the model itself, or a richer one (a style's times).
    associatedtype Entry: Codable & Sendable = Self
    static var entries: OSSBucketConfigurationEntries { get }
    /// Checks the document before it is sent (``OSSClientError/Code/invalidArgument``).
    func validate() throws
}

extension OSSNamedBucketConfiguration {
    public func validate() throws {}

    /// The document as OSS exchanges it (`<InventoryConfiguration>…</InventoryConfiguration>`).
    public func xmlDocument() throws -> String { try Self.xmlDocument(self) }

    /// What Get answered, as the XML document OSS sent.
    public static func xmlDocument(_ value: some Encodable) throws -> String {
        do { return try OSSXMLEncoder().encode(value, root: entries.root) } catch {
            throw OSSClientError.invalidArgument("\(entries.stem): the configuration cannot be written as XML: \(error)")
        }
    }

    /// Reads a document from its XML; one that is not is `.invalidArgument`, naming the element at fault.
    public init(xmlDocument bytes: some Collection<UInt8>) throws {
        do { self = try OSSXMLDecoder().decode(Self.self, from: bytes, root: Self.entries.root) } catch {
            throw OSSClientError.invalidArgument("not a \(Self.entries.root) document: \(error)")
        }
    }
}

/// What names a family of named documents on the wire.
public struct OSSBucketConfigurationEntries: Sendable, Hashable {
    /// The API names' stem: `BucketInventory` in PutBucketInventory, `Style` in PutStyle.
    public let stem: String
    public let subresource: String
    /// The query parameter naming one document (`inventoryId`).
    public let nameParameter: String
    /// The root element of one document, sent and answered.
    public let root: String
    /// The root element of the list; its children are documents under ``root``.
    public let listRoot: String

    public init(stem: String, subresource: String, nameParameter: String, root: String, listRoot: String) {
        self.stem = stem
        self.subresource = subresource
        self.nameParameter = nameParameter
        self.root = root
        self.listRoot = listRoot
    }

    func api(_ verb: String, _ method: String) -> OSSAPI { OSSAPI(verb + stem, method, subresource: subresource) }
}

/// The result of GetBucketInventory, GetStyle, ...
public struct OSSGetNamedBucketConfigurationResult<Configuration: OSSNamedBucketConfiguration>: Sendable {
    public var configuration: Configuration.Entry
    public var requestId: String
}

/// One page of ListBucketInventory, ListStyle, ...
public struct OSSListNamedBucketConfigurationsResult<Configuration: OSSNamedBucketConfiguration>: Sendable {
    public var configurations: [Configuration.Entry]
    public var isTruncated: Bool
    /// The token of the next page when truncated.
    public var nextContinuationToken: String?
    public var requestId: String
}

extension OSSClient {
    /// PutBucketInventory, PutStyle, ...: stores `configuration` under `name`.
    @discardableResult
    public func putBucketConfiguration<Configuration: OSSNamedBucketConfiguration>(
        _ configuration: Configuration, named name: String, bucketName: String
    ) async throws -> OSSEmptyResult {
        try configuration.validate()
        let entries = Configuration.entries
        let call = try OSSBucketQueryCall(
            entries.api("Put", "PUT"), bucket: bucketName, query: [entries.nameParameter: Self.entryName(name)],
            body: OSSNamedBucketConfigurationDocument(configuration: configuration), as: OSSEmptyResult.self)
        return try await perform(call)
    }

    /// GetBucketInventory, GetStyle, ...: the document stored under `name`.
    public func getBucketConfiguration<Configuration: OSSNamedBucketConfiguration>(
        _ family: Configuration.Type, named name: String, bucketName: String
    ) async throws -> OSSGetNamedBucketConfigurationResult<Configuration> {
        let entries = Configuration.entries
        return try await perform(
            OSSBucketQueryCall(
                entries.api("Get", "GET"), bucket: bucketName, query: [entries.nameParameter: Self.entryName(name)],
                as: OSSGetNamedBucketConfigurationResult<Configuration>.self))
    }

    /// DeleteBucketInventory, DeleteStyle, ...
    @discardableResult
    public func deleteBucketConfiguration<Configuration: OSSNamedBucketConfiguration>(
        _ family: Configuration.Type, named name: String, bucketName: String
    ) async throws -> OSSEmptyResult {
        let entries = Configuration.entries
        return try await perform(
            OSSBucketQueryCall(
                entries.api("Delete", "DELETE"), bucket: bucketName, query: [entries.nameParameter: Self.entryName(name)],
                as: OSSEmptyResult.self))
    }

    /// ListBucketInventory, ListStyle, ...: one page, from `continuationToken` (the previous page's
    /// `nextContinuationToken`).
    public func listBucketConfigurations<Configuration: OSSNamedBucketConfiguration>(
        _ family: Configuration.Type, bucketName: String, continuationToken: String? = nil
    ) async throws -> OSSListNamedBucketConfigurationsResult<Configuration> {
        let entries = Configuration.entries
        var query: [String: String] = [:]
        if let continuationToken { query["continuation-token"] = continuationToken }
        return try await perform(
            OSSBucketQueryCall(
                entries.api("List", "GET"), bucket: bucketName, query: query,
                as: OSSListNamedBucketConfigurationsResult<Configuration>.self))
    }

    /// Every page of ListBucketInventory, ListStyle, ..., following `NextContinuationToken` while truncated.
    public func listBucketConfigurationsPaginator<Configuration: OSSNamedBucketConfiguration>(
        _ family: Configuration.Type, bucketName: String
    ) -> OSSPaginator<String?, OSSListNamedBucketConfigurationsResult<Configuration>> {
        OSSPaginator(first: nil, fetch: { token in
            try await self.listBucketConfigurations(family, bucketName: bucketName, continuationToken: token)
        }) { previous, page in
            guard page.isTruncated else { return nil }
            guard let next = page.nextContinuationToken, !next.isEmpty, next != previous else {
                throw OSSClientError(.exceptionCaught, "List\(Configuration.entries.stem) is truncated but its token does not advance")
            }
            return next
        }
    }

    private static func entryName(_ name: String) throws -> String {
        guard !name.isEmpty else { throw OSSClientError.invalidArgument("a configuration's name is not empty") }
        return name
    }
}

/// A named document written under its family's root.
struct OSSNamedBucketConfigurationDocument<Configuration: OSSNamedBucketConfiguration>: OSSXMLDocument, Encodable {
    static var root: String { Configuration.entries.root }
    var configuration: Configuration

    func encode(to encoder: any Encoder) throws { try configuration.encode(to: encoder) }
}

/// A bucket call with query parameters beyond its sub-resource (`inventoryId=`, `comp=add`) and an optional XML
/// body.
struct OSSBucketQueryCall<Result: OSSDeclaredResult, Body: OSSXMLDocument & Encodable & Sendable>: OSSDeclaredOperation {
    var api: OSSAPI
    var bucket: String?
    var query: [String: String]
    var body: Body?

    static var parameters: [OSSParameter<Self>] {
        [OSSParameter { call, operation in for (name, value) in call.query { operation.setQuery(name, value) } }]
    }
}

extension OSSBucketQueryCall {
    init(_ api: OSSAPI, bucket: String, query: [String: String] = [:], body: Body?, as result: Result.Type) {
        self.init(api: api, bucket: bucket, query: query, body: body)
    }
}

extension OSSBucketQueryCall where Body == OSSNoBody {
    init(_ api: OSSAPI, bucket: String, query: [String: String] = [:], as result: Result.Type) {
        self.init(api: api, bucket: bucket, query: query, body: nil)
    }
}

extension OSSGetNamedBucketConfigurationResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(
            configuration: try await response.xml(Configuration.Entry.self, root: Configuration.entries.root),
            requestId: response.requestId)
    }
}

extension OSSListNamedBucketConfigurationsResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let list = try await response.xml(Document.self, root: Configuration.entries.listRoot)
        return Self(
            configurations: list.entries, isTruncated: list.isTruncated ?? false,
            nextContinuationToken: list.nextContinuationToken, requestId: response.requestId)
    }

    /// The list: documents under the family's root element, then the page's fields.
    struct Document: Decodable {
        var entries: [Configuration.Entry]
        var isTruncated: Bool?
        var nextContinuationToken: String?

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: ElementKey.self)
            entries = try container.decodeIfPresent([Configuration.Entry].self, forKey: ElementKey(Configuration.entries.root)) ?? []
            isTruncated = try container.decodeIfPresent(Bool.self, forKey: ElementKey("IsTruncated"))
            nextContinuationToken = try container.decodeIfPresent(String.self, forKey: ElementKey("NextContinuationToken"))
        }
    }
}

/// An element named at run time.
struct ElementKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
