#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Meta query (data indexing): once opened, OSS indexes a bucket's objects and answers queries over their file
/// name, size, modification time, ETag, content type, tags and user metadata, sorted and paged, with
/// aggregations. POST actions with a `comp`, so the four calls are declared here rather than as a family.
extension OSSClient {
    /// OpenMetaQuery (`POST /?metaQuery&comp=add`): starts indexing the bucket; `mode` is `basic` (scalar
    /// retrieval, the default) or `semantic`.
    @discardableResult
    public func openMetaQuery(mode: String? = nil, bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSMetaQueryRequest(
            api: OSSAPI("OpenMetaQuery", "POST", subresource: "metaQuery"), bucketName: bucketName, comp: "add", mode: mode,
            as: OSSEmptyResult.self))
    }

    /// GetMetaQueryStatus (`GET /?metaQuery`): the index's state and phase.
    public func getMetaQueryStatus(bucketName: String) async throws -> OSSGetMetaQueryStatusResult {
        try await perform(OSSCall(OSSAPI("GetMetaQueryStatus", "GET", subresource: "metaQuery"), bucket: bucketName, as: OSSGetMetaQueryStatusResult.self))
    }

    /// DoMetaQuery (`POST /?metaQuery&comp=query`): the objects that match `query`, a page of at most
    /// `maxResults` after its `nextToken`, and the aggregations it asks for.
    public func doMetaQuery(_ query: OSSMetaQuery, mode: String? = nil, bucketName: String) async throws -> OSSDoMetaQueryResult {
        var request = OSSMetaQueryRequest(
            api: OSSAPI("DoMetaQuery", "POST", subresource: "metaQuery"), bucketName: bucketName, comp: "query", mode: mode,
            as: OSSDoMetaQueryResult.self)
        request.query = query
        return try await perform(request)
    }

    /// CloseMetaQuery (`POST /?metaQuery&comp=delete`): stops indexing and drops the index.
    @discardableResult
    public func closeMetaQuery(bucketName: String) async throws -> OSSEmptyResult {
        try await perform(OSSMetaQueryRequest(
            api: OSSAPI("CloseMetaQuery", "POST", subresource: "metaQuery"), bucketName: bucketName, comp: "delete",
            as: OSSEmptyResult.self))
    }
}

/// A DoMetaQuery request: `<MetaQuery>`.
public struct OSSMetaQuery: Codable, Sendable, Hashable {
    public var nextToken: String?
    /// 1 to 100; `nil` (or 0) is 100.
    public var maxResults: Int?
    /// The condition as OSS's JSON text; ``OSSMetaQueryCondition/json`` writes one.
    public var query: String
    /// The field to sort by (`Size`, `FileModifiedTime`, `Filename`, ...).
    public var sort: String?
    /// `asc` or `desc`.
    public var order: String?
    public var aggregations: Aggregations?

    public init(
        query: OSSMetaQueryCondition, maxResults: Int? = nil, nextToken: String? = nil, sort: String? = nil, order: String? = nil,
        aggregations: [Aggregation] = []
    ) {
        self.init(
            query: query.json, maxResults: maxResults, nextToken: nextToken, sort: sort, order: order, aggregations: aggregations)
    }

    public init(
        query: String, maxResults: Int? = nil, nextToken: String? = nil, sort: String? = nil, order: String? = nil,
        aggregations: [Aggregation] = []
    ) {
        self.query = query
        self.maxResults = maxResults
        self.nextToken = nextToken
        self.sort = sort
        self.order = order
        self.aggregations = aggregations.isEmpty ? nil : Aggregations(aggregations: aggregations)
    }

    /// `<Aggregations>`.
    public struct Aggregations: Codable, Sendable, Hashable {
        public var aggregations: [Aggregation]
        enum CodingKeys: String, CodingKey { case aggregations = "Aggregation" }
    }

    /// An aggregation asked for: `field` with `min`, `max`, `sum`, `average`, `count`, `distinct` or `group`.
    public struct Aggregation: Codable, Sendable, Hashable {
        public var field: String
        public var operation: String
        public init(field: String, operation: String) {
            self.field = field
            self.operation = operation
        }
        enum CodingKeys: String, CodingKey { case field = "Field", operation = "Operation" }
    }

    enum CodingKeys: String, CodingKey {
        case nextToken = "NextToken", maxResults = "MaxResults", query = "Query", sort = "Sort", order = "Order"
        case aggregations = "Aggregations"
    }
}

/// A meta query condition: a field compared with a value, or `and` / `or` / `not` over sub-conditions. Fields are
/// OSS's (`Filename`, `Size`, `FileModifiedTime`, `ETag`, `ContentType`, `OSSTagging.<key>`,
/// `OSSUserMeta.x-oss-meta-<key>`, ...).
public indirect enum OSSMetaQueryCondition: Sendable, Hashable {
    /// `operation` is `eq`, `gt`, `gte`, `lt`, `lte`, `match`, `prefix` or `exist` (which ignores `value`).
    case field(String, _ operation: String, _ value: String)
    case and([OSSMetaQueryCondition])
    case or([OSSMetaQueryCondition])
    case not(OSSMetaQueryCondition)

    /// The condition as the JSON text OSS reads in `<Query>`.
    public var json: String {
        switch self {
        case .field(let field, let operation, let value):
            return "{\"Field\":\(Self.quoted(field)),\"Value\":\(Self.quoted(value)),\"Operation\":\(Self.quoted(operation))}"
        case .and(let all): return Self.compound("and", all)
        case .or(let all): return Self.compound("or", all)
        case .not(let one): return Self.compound("not", [one])
        }
    }

    private static func compound(_ operation: String, _ parts: [OSSMetaQueryCondition]) -> String {
        "{\"Operation\":\"\(operation)\",\"SubQueries\":[\(parts.map(\.json).joined(separator: ","))]}"
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20: out += (scalar.value < 0x10 ? "\\u000" : "\\u00") + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// `<MetaQueryStatus>`.
public struct OSSMetaQueryStatus: Codable, Sendable, Hashable {
    /// `Ready`, `Stop`, `Running`, `Retrying`, `Failed` or `Deleted`.
    public var state: String?
    /// `FullScanning` or `IncrementalScanning`.
    public var phase: String?
    public var createTime: String?
    public var updateTime: String?
    /// `basic` or `semantic`.
    public var metaQueryMode: String?

    enum CodingKeys: String, CodingKey {
        case state = "State", phase = "Phase", createTime = "CreateTime", updateTime = "UpdateTime", metaQueryMode = "MetaQueryMode"
    }
}

/// The result of GetMetaQueryStatus.
public struct OSSGetMetaQueryStatusResult: Sendable {
    public var status: OSSMetaQueryStatus
    public var requestId: String
}

/// One object DoMetaQuery found.
public struct OSSMetaQueryFile: Codable, Sendable, Hashable {
    /// The object's key.
    public var filename: String
    public var size: Int64?
    public var fileModifiedTime: String?
    public var etag: String?
    public var contentType: String?
    public var ossObjectType: String?
    public var ossStorageClass: String?
    public var objectACL: String?
    public var ossCRC64: String?
    public var ossTaggingCount: Int?
    public var ossTagging: Tagging?
    public var ossUserMeta: UserMeta?

    /// `<OSSTagging><Tagging><Key/><Value/></Tagging>…`.
    public struct Tagging: Codable, Sendable, Hashable {
        public var tags: [Pair]
        enum CodingKeys: String, CodingKey { case tags = "Tagging" }
    }

    /// `<OSSUserMeta><UserMeta><Key/><Value/></UserMeta>…`.
    public struct UserMeta: Codable, Sendable, Hashable {
        public var entries: [Pair]
        enum CodingKeys: String, CodingKey { case entries = "UserMeta" }
    }

    public struct Pair: Codable, Sendable, Hashable {
        public var key: String
        public var value: String
        enum CodingKeys: String, CodingKey { case key = "Key", value = "Value" }
    }

    /// The object's tags as a dictionary.
    public var tags: [String: String] { Dictionary((ossTagging?.tags ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }) }
    /// The object's user metadata (`x-oss-meta-*` names) as a dictionary.
    public var userMetadata: [String: String] {
        Dictionary((ossUserMeta?.entries ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a })
    }

    enum CodingKeys: String, CodingKey {
        case filename = "Filename", size = "Size", fileModifiedTime = "FileModifiedTime", etag = "ETag", contentType = "ContentType"
        case ossObjectType = "OSSObjectType", ossStorageClass = "OSSStorageClass", objectACL = "ObjectACL", ossCRC64 = "OSSCRC64"
        case ossTaggingCount = "OSSTaggingCount", ossTagging = "OSSTagging", ossUserMeta = "OSSUserMeta"
    }
}

/// An aggregation DoMetaQuery computed: a `value`, or `groups` for `group`.
public struct OSSMetaQueryAggregationResult: Codable, Sendable, Hashable {
    public var field: String
    public var operation: String
    public var value: Double?
    public var groups: Groups?

    public struct Groups: Codable, Sendable, Hashable {
        public var groups: [Group]
        enum CodingKeys: String, CodingKey { case groups = "Group" }
    }

    public struct Group: Codable, Sendable, Hashable {
        public var value: String
        public var count: Int
        enum CodingKeys: String, CodingKey { case value = "Value", count = "Count" }
    }

    enum CodingKeys: String, CodingKey { case field = "Field", operation = "Operation", value = "Value", groups = "Groups" }
}

/// The result of DoMetaQuery.
public struct OSSDoMetaQueryResult: Sendable {
    public var files: [OSSMetaQueryFile]
    public var aggregations: [OSSMetaQueryAggregationResult]
    /// The token of the next page; `nil` on the last.
    public var nextToken: String?
    public var requestId: String
}

struct OSSMetaQueryRequest<Result: OSSDeclaredResult>: OSSBucketOperation {
    var api: OSSAPI
    var bucketName: String
    var comp: String
    var mode: String?
    var query: OSSMetaQuery?

    init(api: OSSAPI, bucketName: String, comp: String, mode: String? = nil, as result: Result.Type) {
        self.api = api
        self.bucketName = bucketName
        self.comp = comp
        self.mode = mode
    }

    static var parameters: [OSSParameter<Self>] { [.query("comp", \.comp), .query("mode", \.mode)] }
    var body: OSSMetaQueryDocument? { query.map(OSSMetaQueryDocument.init) }

    func validate() throws {
        if let mode, mode != "basic", mode != "semantic" {
            throw OSSClientError.invalidArgument("\(api.name): mode is basic or semantic, not \(mode.debugDescription)")
        }
        if let maxResults = query?.maxResults, !(0...100).contains(maxResults) {
            throw OSSClientError.invalidArgument("DoMetaQuery: MaxResults is 0 to 100, not \(maxResults)")
        }
    }
}

struct OSSMetaQueryDocument: OSSXMLDocument, Encodable {
    static let root = "MetaQuery"
    var query: OSSMetaQuery
    func encode(to encoder: any Encoder) throws { try query.encode(to: encoder) }
}

extension OSSGetMetaQueryStatusResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(status: try await response.xml(OSSMetaQueryStatus.self, root: "MetaQueryStatus"), requestId: response.requestId)
    }
}

extension OSSDoMetaQueryResult: OSSDeclaredResult {
    private struct Document: Decodable {
        var nextToken: String?
        var files: Files?
        var aggregations: Aggregations?
        struct Files: Decodable {
            var files: [OSSMetaQueryFile]
            enum CodingKeys: String, CodingKey { case files = "File" }
        }
        struct Aggregations: Decodable {
            var aggregations: [OSSMetaQueryAggregationResult]
            enum CodingKeys: String, CodingKey { case aggregations = "Aggregation" }
        }
        enum CodingKeys: String, CodingKey { case nextToken = "NextToken", files = "Files", aggregations = "Aggregations" }
    }

    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let d = try await response.xml(Document.self, root: "MetaQuery")
        return Self(
            files: d.files?.files ?? [], aggregations: d.aggregations?.aggregations ?? [],
            nextToken: d.nextToken.flatMap { $0.isEmpty ? nil : $0 }, requestId: response.requestId)
    }
}
