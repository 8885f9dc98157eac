import Foundation
import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

/// Families a bucket keeps several entries of, each with a name: inventories (`?inventory&inventoryId=`), image
/// styles (`?style&styleName=`), replication rules (`POST ?replication&comp=add|delete`, by `ID`). Each family's
/// entries are one document under `config/<subresource>`, changed in one turn of the store so concurrent additions
/// all stay.
struct ConfigurationEntry<Entry: Codable & Sendable>: Codable, Sendable {
    var name: String
    var entry: Entry
}

extension RequestHandler {
    /// The entries of a family, in the order they were added.
    func configurationEntries<Entry: Codable & Sendable>(
        _ bucket: String, _ subresource: String, _ type: Entry.Type
    ) async throws -> [ConfigurationEntry<Entry>] {
        try await store.updateConfiguration(bucket, subresource) { stored in
            (stored, try Self.decodeEntries(stored, Entry.self))
        }
    }

    /// Changes the entries of a family in one step; no entries left removes the document.
    func updateConfigurationEntries<Entry: Codable & Sendable, Result: Sendable>(
        _ bucket: String, _ subresource: String, _ type: Entry.Type,
        _ change: @Sendable @escaping (inout [ConfigurationEntry<Entry>]) throws -> Result
    ) async throws -> Result {
        try await store.updateConfiguration(bucket, subresource) { stored in
            var entries = try Self.decodeEntries(stored, Entry.self)
            let result = try change(&entries)
            return (entries.isEmpty ? nil : Array(try JSONEncoder().encode(entries)), result)
        }
    }

    private static func decodeEntries<Entry: Codable & Sendable>(
        _ stored: [UInt8]?, _ type: Entry.Type
    ) throws -> [ConfigurationEntry<Entry>] {
        guard let stored else { return [] }
        do { return try JSONDecoder().decode([ConfigurationEntry<Entry>].self, from: Data(stored)) } catch {
            throw LocalOSSError.internalError("a stored configuration cannot be read: \(error)")
        }
    }

    /// The request's body as `Document`, after its Content-MD5 is checked; not XML is `MalformedXML`.
    func configurationBody<Document: Decodable>(
        _ type: Document.Type, root: String, context: RequestContext, reader: RequestBodyReader
    ) async throws -> Document {
        let body = try await reader.collect(limit: 1 << 20)
        try verifyContentMD5(context, body: body)
        do { return try OSSXMLDecoder().decode(Document.self, from: Array(body.readableBytesView), root: root) } catch {
            throw LocalOSSError.malformedXML("\(error)")
        }
    }

    /// A query parameter the operation cannot do without (`inventoryId`, `styleName`).
    func requiredParameter(_ name: String, _ context: RequestContext) throws(LocalOSSError) -> String {
        guard let value = context.query[name], !value.isEmpty else {
            throw .invalidArgument("The \(name) parameter is required.", name: name)
        }
        return value
    }
}

// MARK: - Inventory

extension RequestHandler {
    static let maximumInventories = 1000
    static let inventoryPageSize = 100

    /// PutBucketInventory, GetBucketInventory, ListBucketInventory, DeleteBucketInventory.
    func bucketInventory(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws
        -> ServerResponse
    {
        let bucket = try requireBucket(context)
        let subresource = "inventory"
        switch operation {
        case .putBucketInventory:
            let name = try requiredParameter("inventoryId", context)
            let document = try await configurationBody(
                InventoryDocument.self, root: InventoryDocument.root, context: context, reader: reader)
            try await document.check(name: name, ConfigurationCheck(store: store, bucket: bucket))
            try await updateConfigurationEntries(bucket, subresource, InventoryDocument.self) { entries in
                guard !entries.contains(where: { $0.name == name }) else {
                    throw LocalOSSError(409, "InventoryAlreadyExist", "The inventory configuration already exists.", fields: [("InventoryId", name)])
                }
                guard entries.count < Self.maximumInventories else {
                    throw LocalOSSError(400, "TooManyInventory", "A bucket has at most \(Self.maximumInventories) inventory configurations.")
                }
                entries.append(ConfigurationEntry(name: name, entry: document))
            }
            return ServerResponse(status: .ok)
        case .getBucketInventory:
            let name = try requiredParameter("inventoryId", context)
            guard let found = try await configurationEntries(bucket, subresource, InventoryDocument.self).first(where: { $0.name == name }) else {
                throw LocalOSSError(404, "NoSuchInventory", "The inventory configuration does not exist.", fields: [("InventoryId", name)])
            }
            return .xml(try OSSXMLEncoder().encode(found.entry, root: InventoryDocument.root))
        case .listBucketInventory:
            let token = context.query["continuation-token"] ?? ""
            let all = try await configurationEntries(bucket, subresource, InventoryDocument.self)
                .sorted { $0.name < $1.name }.filter { token.isEmpty || $0.name > token }
            let page = all.prefix(Self.inventoryPageSize)
            let truncated = all.count > page.count
            let list = InventoryList(
                configurations: page.map(\.entry), isTruncated: truncated,
                nextContinuationToken: truncated ? page.last?.name : nil)
            return .xml(try OSSXMLEncoder().encode(list, root: "ListInventoryConfigurationsResult"))
        default:
            let name = try requiredParameter("inventoryId", context)
            try await updateConfigurationEntries(bucket, subresource, InventoryDocument.self) { entries in
                entries.removeAll { $0.name == name }
            }
            return ServerResponse(status: .noContent)
        }
    }
}

/// `<ListInventoryConfigurationsResult>`.
private struct InventoryList: Encodable {
    var configurations: [InventoryDocument]
    var isTruncated: Bool
    var nextContinuationToken: String?
    enum CodingKeys: String, CodingKey {
        case configurations = "InventoryConfiguration", isTruncated = "IsTruncated"
        case nextContinuationToken = "NextContinuationToken"
    }
}

// MARK: - Image styles

extension RequestHandler {
    static let maximumStyles = 100

    /// PutStyle, GetStyle, ListStyle, DeleteStyle.
    func bucketStyle(_ operation: LocalOSSOperation, context: RequestContext, reader: RequestBodyReader) async throws
        -> ServerResponse
    {
        let bucket = try requireBucket(context)
        let subresource = "style"
        switch operation {
        case .putStyle:
            let name = try requiredParameter("styleName", context)
            try StyleDocument.checkName(name)
            let document = try await configurationBody(StyleDocument.self, root: StyleDocument.root, context: context, reader: reader)
            try document.check()
            let now = OSSDateFormat.rfc1123(context.now)
            let category = context.query["category"] ?? "image"
            try await updateConfigurationEntries(bucket, subresource, StyleInfo.self) { entries in
                if let index = entries.firstIndex(where: { $0.name == name }) {
                    entries[index].entry.content = document.content
                    entries[index].entry.lastModifyTime = now
                    return
                }
                guard entries.count < Self.maximumStyles else {
                    throw LocalOSSError(400, "TooManyStyles", "A bucket has at most \(Self.maximumStyles) styles.")
                }
                entries.append(ConfigurationEntry(
                    name: name,
                    entry: StyleInfo(name: name, content: document.content, createTime: now, lastModifyTime: now, category: category)))
            }
            return ServerResponse(status: .ok)
        case .getStyle:
            let name = try requiredParameter("styleName", context)
            guard let found = try await configurationEntries(bucket, subresource, StyleInfo.self).first(where: { $0.name == name }) else {
                throw LocalOSSError(404, "NoSuchStyle", "The specified style does not exist.", fields: [("StyleName", name)])
            }
            return .xml(try OSSXMLEncoder().encode(found.entry, root: "Style"))
        case .listStyle:
            let styles = try await configurationEntries(bucket, subresource, StyleInfo.self).sorted { $0.name < $1.name }
            return .xml(try OSSXMLEncoder().encode(StyleList(styles: styles.map(\.entry)), root: "StyleList"))
        default:
            let name = try requiredParameter("styleName", context)
            try await updateConfigurationEntries(bucket, subresource, StyleInfo.self) { entries in
                entries.removeAll { $0.name == name }
            }
            return ServerResponse(status: .noContent)
        }
    }

}

/// `<StyleList><Style>…</Style>…</StyleList>`.
private struct StyleList: Encodable {
    var styles: [StyleInfo]
    enum CodingKeys: String, CodingKey { case styles = "Style" }
}

extension Router {
    /// The operation a bucket-level request asks of a family kept as named entries, or of replication.
    static func configurationEntriesOperation(_ method: String, _ q: [String: String]) -> LocalOSSOperation? {
        if q["inventory"] != nil {
            switch method {
            case "PUT": return .putBucketInventory
            case "GET": return q["inventoryId"] == nil ? .listBucketInventory : .getBucketInventory
            case "DELETE": return .deleteBucketInventory
            default: return nil
            }
        }
        if q["style"] != nil {
            switch method {
            case "PUT": return .putStyle
            case "GET": return q["styleName"] == nil ? .listStyle : .getStyle
            case "DELETE": return .deleteStyle
            default: return nil
            }
        }
        if q["replicationLocation"] != nil { return method == "GET" ? .getBucketReplicationLocation : nil }
        if q["replicationProgress"] != nil { return method == "GET" ? .getBucketReplicationProgress : nil }
        if q["replication"] != nil {
            switch (method, q["comp"]) {
            case ("POST", "add"): return .putBucketReplication
            case ("POST", "delete"): return .deleteBucketReplication
            case ("GET", _): return .getBucketReplication
            default: return nil
            }
        }
        return nil
    }
}
