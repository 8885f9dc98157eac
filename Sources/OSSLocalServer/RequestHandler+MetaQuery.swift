import Foundation
import NIOHTTP1
import OSSSigning
import OSSXML

/// Meta query (OpenMetaQuery, GetMetaQueryStatus, DoMetaQuery, CloseMetaQuery). Once opened, DoMetaQuery in `basic`
/// mode evaluates OSS's query JSON over the bucket's current objects as they are now (the local index is never
/// behind): field operations `eq`, `gt`, `gte`, `lt`, `lte`, `prefix`, `match` (substring) and `exist` over
/// `Filename`, `Size`, `FileModifiedTime`, `ETag`, `ContentType`, `OSSStorageClass`, `ObjectACL`, `OSSObjectType`,
/// `OSSCRC64`, `OSSTaggingCount`, `OSSTagging.<key>` and `OSSUserMeta.x-oss-meta-<key>`, combined with `and`,
/// `or` and `not`; `Sort` and `Order`, `MaxResults` pages with a `NextToken`, and the aggregations `min`, `max`,
/// `sum`, `average`, `count`, `distinct` and `group`. `semantic` (vector) retrieval is not implemented (501).
extension RequestHandler {
    static let metaQuerySubresource = "metaQuery"

    func metaQuery(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        let mode = context.query["mode"] ?? "basic"
        guard mode == "basic" || mode == "semantic" else {
            throw LocalOSSError.invalidArgument("mode is basic or semantic.", name: "mode", value: String(mode.prefix(16)))
        }
        let now = OSSDateFormat.iso8601Milliseconds(context.now)
        switch operation {
        case .openMetaQuery:
            try await updateConfigurationEntries(bucket, Self.metaQuerySubresource, MetaQueryState.self) { entries in
                guard entries.isEmpty else {
                    throw LocalOSSError(409, "MetaQueryAlreadyExist", "The bucket's metadata index is already open.", fields: [("BucketName", bucket)])
                }
                entries.append(ConfigurationEntry(name: "index", entry: MetaQueryState(createTime: now, mode: mode)))
            }
            return ServerResponse(status: .ok)
        case .getMetaQueryStatus:
            let state = try await openMetaQuery(bucket)
            let status = MetaQueryStatus(
                createTime: state.createTime, updateTime: now, state: "Running", phase: "IncrementalScanning", metaQueryMode: state.mode)
            return .xml(try OSSXMLEncoder().encode(status, root: "MetaQueryStatus"))
        case .closeMetaQuery:
            _ = try await openMetaQuery(bucket)
            try await updateConfigurationEntries(bucket, Self.metaQuerySubresource, MetaQueryState.self) { $0.removeAll() }
            return ServerResponse(status: .ok)
        default:
            _ = try await openMetaQuery(bucket)
            guard mode == "basic" else { throw LocalOSSError.notImplemented("Semantic (vector) meta query is not implemented by the local server.") }
            let request = try await configurationBody(MetaQueryRequest.self, root: "MetaQuery", context: context, reader: reader)
            return .xml(try OSSXMLEncoder().encode(try await runMetaQuery(request, bucket: bucket), root: "MetaQuery"))
        }
    }

    private func openMetaQuery(_ bucket: String) async throws -> MetaQueryState {
        guard let state = try await configurationEntries(bucket, Self.metaQuerySubresource, MetaQueryState.self).first?.entry else {
            throw LocalOSSError(404, "MetaQueryNotExist", "The bucket's metadata index is not open.", fields: [("BucketName", bucket)])
        }
        return state
    }

    private func runMetaQuery(_ request: MetaQueryRequest, bucket: String) async throws -> MetaQueryAnswer {
        let maxResults = request.maxResults ?? 0
        guard (0...100).contains(maxResults) else {
            throw LocalOSSError.invalidArgument("MaxResults is 0 to 100.", name: "MaxResults", value: String(maxResults))
        }
        let condition = try MetaQueryCondition(json: request.query)
        let order = request.order ?? "asc"
        guard order == "asc" || order == "desc" else { throw LocalOSSError.invalidArgument("Order is asc or desc.", name: "Order", value: order) }
        let sort = request.sort.flatMap { $0.isEmpty ? nil : $0 } ?? "Filename"
        var offset = 0
        if let token = request.nextToken, !token.isEmpty {
            guard let data = Data(base64Encoded: token), let text = String(data: data, encoding: .utf8), text.hasPrefix("offset:"),
                let value = Int(text.dropFirst(7)), value >= 0
            else { throw LocalOSSError.invalidArgument("The NextToken is not valid.", name: "NextToken") }
            offset = value
        }
        let keys = try await store.sortedKeys(bucket)
        let facts = await store.objects(bucket, keys: keys).filter { $0.deleteMarker != true }.map(MetaQueryFacts.init)
        let matched = try facts.filter { try condition.holds(for: $0) }
        let sorted = matched.sorted { a, b in
            let (x, y) = (a.sortKey(sort), b.sortKey(sort))
            if x == y { return a.key < b.key }
            return order == "asc" ? x < y : y < x
        }
        let limit = maxResults == 0 ? 100 : maxResults
        let page = Array(sorted.dropFirst(offset).prefix(limit))
        let next = offset + page.count < sorted.count ? Data("offset:\(offset + page.count)".utf8).base64EncodedString() : ""
        let aggregations = try (request.aggregations?.items ?? []).map { try $0.evaluate(over: matched) }
        return MetaQueryAnswer(
            nextToken: next, files: .init(items: page.map(\.file)),
            aggregations: aggregations.isEmpty ? nil : .init(items: aggregations))
    }
}

private struct MetaQueryState: Codable, Sendable {
    var createTime: String
    var mode: String
}

private struct MetaQueryStatus: Encodable {
    var createTime: String
    var updateTime: String
    var state: String
    var phase: String
    var metaQueryMode: String
    enum CodingKeys: String, CodingKey {
        case createTime = "CreateTime", updateTime = "UpdateTime", state = "State", phase = "Phase", metaQueryMode = "MetaQueryMode"
    }
}

private struct MetaQueryRequest: Decodable {
    var nextToken: String?
    var maxResults: Int?
    var query: String
    var sort: String?
    var order: String?
    var aggregations: Aggregations?
    struct Aggregations: Decodable {
        var items: [Aggregation]
        enum CodingKeys: String, CodingKey { case items = "Aggregation" }
    }
    enum CodingKeys: String, CodingKey {
        case nextToken = "NextToken", maxResults = "MaxResults", query = "Query", sort = "Sort", order = "Order", aggregations = "Aggregations"
    }

    struct Aggregation: Decodable {
        var field: String
        var operation: String
        enum CodingKeys: String, CodingKey { case field = "Field", operation = "Operation" }

        func evaluate(over files: [MetaQueryFacts]) throws(LocalOSSError) -> MetaQueryAnswer.Aggregation {
            let values = files.compactMap { $0.value(of: field) }
            var result = MetaQueryAnswer.Aggregation(field: field, operation: operation)
            switch operation {
            case "count": result.value = Double(values.count)
            case "distinct": result.value = Double(Set(values).count)
            case "group":
                let counts = Dictionary(values.map { ($0, 1) }, uniquingKeysWith: +)
                result.groups = .init(items: counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .map { .init(value: $0.key, count: $0.value) })
            case "min", "max", "sum", "average":
                guard MetaQueryFacts.numericFields.contains(field) else {
                    throw .invalidArgument("The \(operation) aggregation needs a numeric field.", name: "Field", value: field)
                }
                let numbers = values.compactMap(Double.init)
                switch operation {
                case "min": result.value = numbers.min() ?? 0
                case "max": result.value = numbers.max() ?? 0
                case "sum": result.value = numbers.reduce(0, +)
                default: result.value = numbers.isEmpty ? 0 : numbers.reduce(0, +) / Double(numbers.count)
                }
            default:
                throw .invalidArgument("The aggregation operation is not valid.", name: "Operation", value: String(operation.prefix(16)))
            }
            return result
        }
    }
}

/// A parsed `<Query>`.
private indirect enum MetaQueryCondition {
    case field(String, String, String?)
    case and([MetaQueryCondition])
    case or([MetaQueryCondition])
    case not(MetaQueryCondition)

    static let fieldOperations: Set<String> = ["eq", "gt", "gte", "lt", "lte", "prefix", "match", "exist"]

    init(json text: String) throws(LocalOSSError) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
            throw .invalidArgument("The Query is not JSON.", name: "Query")
        }
        self = try Self(object)
    }

    private init(_ object: Any) throws(LocalOSSError) {
        guard let query = object as? [String: Any], let operation = query["Operation"] as? String else {
            throw .invalidArgument("A query names its Operation.", name: "Query")
        }
        switch operation {
        case "and", "or", "not":
            guard let subs = query["SubQueries"] as? [Any], !subs.isEmpty, operation != "not" || subs.count == 1 else {
                throw .invalidArgument("\(operation) needs SubQueries (not: exactly one).", name: "SubQueries")
            }
            var parts: [MetaQueryCondition] = []
            for sub in subs { parts.append(try Self(sub)) }
            self = operation == "and" ? .and(parts) : operation == "or" ? .or(parts) : .not(parts[0])
        case _ where Self.fieldOperations.contains(operation):
            guard let field = query["Field"] as? String, !field.isEmpty else { throw .invalidArgument("A query names its Field.", name: "Field") }
            let value = query["Value"].map { "\($0)" }
            guard operation == "exist" || value != nil else { throw .invalidArgument("\(operation) needs a Value.", name: "Value") }
            if ["gt", "gte", "lt", "lte"].contains(operation), MetaQueryFacts.numericFields.contains(field), Double(value ?? "") == nil {
                throw .invalidArgument("\(field) compares with a number.", name: "Value", value: String((value ?? "").prefix(32)))
            }
            self = .field(field, operation, value)
        default:
            throw .invalidArgument("The query operation is not valid.", name: "Operation", value: String(operation.prefix(16)))
        }
    }

    func holds(for file: MetaQueryFacts) throws(LocalOSSError) -> Bool {
        switch self {
        case .and(let parts):
            for part in parts where try !part.holds(for: file) { return false }
            return true
        case .or(let parts):
            for part in parts where try part.holds(for: file) { return true }
            return false
        case .not(let part): return try !part.holds(for: file)
        case .field(let field, let operation, let expected):
            guard let actual = file.value(of: field) else { return false }
            guard let expected else { return true }  // exist
            switch operation {
            case "exist": return true
            case "prefix": return actual.hasPrefix(expected)
            case "match": return actual.contains(expected)
            default: break
            }
            let order = MetaQueryFacts.compare(field, actual, expected)
            switch operation {
            case "eq": return order == .orderedSame
            case "gt": return order == .orderedDescending
            case "gte": return order != .orderedAscending
            case "lt": return order == .orderedAscending
            default: return order != .orderedDescending
            }
        }
    }
}

/// What a query can ask of one object.
private struct MetaQueryFacts {
    static let numericFields: Set<String> = ["Size", "OSSTaggingCount"]
    let record: ObjectRecord
    let acl: String
    var key: String { record.key }

    init(_ record: ObjectRecord) {
        self.record = record
        acl = record.extra?.acl.flatMap { $0 == "default" ? nil : $0 } ?? "default"
    }

    var tags: [ObjectExtra.Tag] { record.extra?.tags ?? [] }

    func value(of field: String) -> String? {
        switch field {
        case "Filename": return record.key
        case "Size": return String(record.size)
        case "FileModifiedTime": return OSSDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: TimeInterval(record.lastModified)))
        case "ETag": return record.etag
        case "ContentType": return record.contentType
        case "OSSStorageClass": return record.extra?.storageClassName ?? "Standard"
        case "ObjectACL": return acl
        case "OSSObjectType": return record.objectType
        case "OSSCRC64": return String(record.crc64)
        case "OSSTaggingCount": return String(tags.count)
        default:
            if field.hasPrefix("OSSTagging.") {
                let key = field.dropFirst("OSSTagging.".count)
                return tags.first { $0.key == key }?.value
            }
            if field.hasPrefix("OSSUserMeta.") {
                var key = field.dropFirst("OSSUserMeta.".count).lowercased()
                if !key.hasPrefix("x-oss-meta-") { key = "x-oss-meta-" + key }
                return record.userMetadata[key]
            }
            return nil
        }
    }

    static func compare(_ field: String, _ a: String, _ b: String) -> ComparisonResult {
        if numericFields.contains(field), let x = Double(a), let y = Double(b) {
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }
        if field == "FileModifiedTime", let x = OSSDateFormat.parseISO8601(a), let y = OSSDateFormat.parseISO8601(b) {
            return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
        }
        return a < b ? .orderedAscending : a > b ? .orderedDescending : .orderedSame
    }

    /// What `Sort` orders by: numbers as numbers, the rest as text.
    func sortKey(_ field: String) -> SortKey {
        let text = value(of: field)
        if Self.numericFields.contains(field) { return SortKey(number: Double(text ?? "") ?? -1, text: "") }
        if field == "FileModifiedTime" { return SortKey(number: Double(record.lastModified), text: "") }
        return SortKey(number: 0, text: text ?? "")
    }

    struct SortKey: Comparable {
        var number: Double
        var text: String
        static func < (a: Self, b: Self) -> Bool { a.number != b.number ? a.number < b.number : a.text < b.text }
    }

    var file: MetaQueryAnswer.File {
        MetaQueryAnswer.File(
            filename: record.key, size: record.size, fileModifiedTime: value(of: "FileModifiedTime") ?? "", etag: record.etag,
            ossObjectType: record.objectType, ossStorageClass: value(of: "OSSStorageClass") ?? "Standard", objectACL: acl,
            ossCRC64: String(record.crc64), contentType: record.contentType, ossTaggingCount: tags.count,
            ossTagging: tags.isEmpty ? nil : .init(items: tags.map { .init(key: $0.key, value: $0.value) }),
            ossUserMeta: record.userMetadata.isEmpty
                ? nil : .init(items: record.userMetadata.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: $0.value) }))
    }
}

/// `<MetaQuery>` as DoMetaQuery answers.
private struct MetaQueryAnswer: Encodable {
    var nextToken: String
    var files: Files
    var aggregations: Aggregations?
    enum CodingKeys: String, CodingKey { case nextToken = "NextToken", files = "Files", aggregations = "Aggregations" }

    struct Files: Encodable {
        var items: [File]
        enum CodingKeys: String, CodingKey { case items = "File" }
    }

    struct Pair: Encodable {
        var key: String
        var value: String
        enum CodingKeys: String, CodingKey { case key = "Key", value = "Value" }
    }

    struct Tagging: Encodable {
        var items: [Pair]
        enum CodingKeys: String, CodingKey { case items = "Tagging" }
    }

    struct UserMeta: Encodable {
        var items: [Pair]
        enum CodingKeys: String, CodingKey { case items = "UserMeta" }
    }

    struct File: Encodable {
        var filename: String
        var size: Int64
        var fileModifiedTime: String
        var etag: String
        var ossObjectType: String
        var ossStorageClass: String
        var objectACL: String
        var ossCRC64: String
        var contentType: String
        var ossTaggingCount: Int
        var ossTagging: Tagging?
        var ossUserMeta: UserMeta?
        enum CodingKeys: String, CodingKey {
            case filename = "Filename", size = "Size", fileModifiedTime = "FileModifiedTime", etag = "ETag"
            case ossObjectType = "OSSObjectType", ossStorageClass = "OSSStorageClass", objectACL = "ObjectACL", ossCRC64 = "OSSCRC64"
            case contentType = "ContentType", ossTaggingCount = "OSSTaggingCount", ossTagging = "OSSTagging", ossUserMeta = "OSSUserMeta"
        }
    }

    struct Aggregations: Encodable {
        var items: [Aggregation]
        enum CodingKeys: String, CodingKey { case items = "Aggregation" }
    }

    struct Aggregation: Encodable {
        var field: String
        var operation: String
        var value: Double?
        var groups: Groups?
        enum CodingKeys: String, CodingKey { case field = "Field", operation = "Operation", value = "Value", groups = "Groups" }
    }

    struct Groups: Encodable {
        var items: [Group]
        enum CodingKeys: String, CodingKey { case items = "Group" }
    }

    struct Group: Encodable {
        var value: String
        var count: Int
        enum CodingKeys: String, CodingKey { case value = "Value", count = "Count" }
    }
}

extension Router {
    /// The meta query calls (`?metaQuery`, with `comp` for the POST actions).
    static func metaQueryOperation(_ method: String, _ q: [String: String]) -> LocalOSSOperation? {
        guard q["metaQuery"] != nil else { return nil }
        switch (method, q["comp"]) {
        case ("GET", _): return .getMetaQueryStatus
        case ("POST", "add"): return .openMetaQuery
        case ("POST", "query"): return .doMetaQuery
        case ("POST", "delete"): return .closeMetaQuery
        default: return nil
        }
    }
}
