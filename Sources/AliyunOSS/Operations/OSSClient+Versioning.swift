#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

extension OSSClient {
    /// PutBucketVersioning (`PUT /?versioning`): enables or suspends versioning. A versioned bucket never becomes
    /// unversioned again; suspending keeps every version made so far.
    @discardableResult
    public func putBucketVersioning(_ request: OSSPutBucketVersioningRequest) async throws -> OSSEmptyResult {
        try await perform(request)
    }

    /// GetBucketVersioning (`GET /?versioning`): `Enabled`, `Suspended`, or `nil` when never enabled.
    public func getBucketVersioning(_ request: OSSGetBucketVersioningRequest) async throws
        -> OSSGetBucketVersioningResult
    {
        try await perform(request)
    }

    /// ListObjectVersions (`GET /?versions`): one page of versions and delete markers. Sends
    /// `encoding-type=url` and decodes keys, prefixes and markers.
    public func listObjectVersions(_ request: OSSListObjectVersionsRequest) async throws
        -> OSSListObjectVersionsResult
    {
        try Self.checkPageSize(request.maxKeys, name: "maxKeys")
        return try await perform(request)
    }

    /// Every page of ListObjectVersions, following `NextKeyMarker` and `NextVersionIdMarker` while truncated.
    public func listObjectVersionsPaginator(_ request: OSSListObjectVersionsRequest)
        -> OSSListObjectVersionsPaginator
    {
        OSSListObjectVersionsPaginator(client: self, request: request)
    }
}

/// Pages of ListObjectVersions.
public typealias OSSListObjectVersionsPaginator = OSSPaginator<
    OSSListObjectVersionsRequest, OSSListObjectVersionsResult
>

extension OSSPaginator where Request == OSSListObjectVersionsRequest, Page == OSSListObjectVersionsResult {
    init(client: OSSClient, request: OSSListObjectVersionsRequest) {
        self.init(first: request, fetch: { try await client.listObjectVersions($0) }) { previous, page in
            guard page.isTruncated else { return nil }
            guard let key = page.nextKeyMarker, !key.isEmpty,
                key != previous.keyMarker || page.nextVersionIdMarker != previous.versionIdMarker
            else {
                throw OSSClientError(.exceptionCaught, "ListObjectVersions is truncated but its marker does not advance")
            }
            var next = previous
            next.keyMarker = key
            next.versionIdMarker = page.nextVersionIdMarker
            return next
        }
    }
}

extension OSSPutBucketVersioningRequest: OSSBucketOperation {
    typealias Result = OSSEmptyResult
    var api: OSSAPI { OSSAPI("PutBucketVersioning", "PUT", subresource: "versioning") }
    var body: OSSVersioningConfigurationDocument? { OSSVersioningConfigurationDocument(status: status) }

    func validate() throws {
        guard status == .enabled || status == .suspended else {
            throw OSSClientError.invalidArgument("versioning is Enabled or Suspended, not \(status.rawValue.debugDescription)")
        }
    }
}

extension OSSGetBucketVersioningRequest: OSSBucketOperation {
    typealias Result = OSSGetBucketVersioningResult
    var api: OSSAPI { OSSAPI("GetBucketVersioning", "GET", subresource: "versioning") }
}

extension OSSGetBucketVersioningResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let document = try await response.xml(OSSVersioningConfigurationDocument.self)
        return Self(status: document.status, requestId: response.requestId)
    }
}

/// `<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>` (no `<Status>` when never
/// enabled).
struct OSSVersioningConfigurationDocument: OSSXMLDocument, Codable {
    static let root = "VersioningConfiguration"
    var status: OSSVersioningStatus?
}

extension OSSListObjectVersionsRequest: OSSBucketOperation {
    typealias Result = OSSListObjectVersionsResult
    var api: OSSAPI { OSSAPI("ListObjectVersions", "GET", subresource: "versions") }
    static var parameters: [OSSParameter<Self>] {
        [
            .query("prefix", \.prefix), .query("delimiter", \.delimiter), .query("key-marker", \.keyMarker),
            .query("version-id-marker", \.versionIdMarker), .query("max-keys", \.maxKeys),
            .query("encoding-type", \.encodingType),
        ]
    }

    /// Always `url`: any key survives the XML round trip.
    var encodingType: String { "url" }

    func validate() throws {
        if versionIdMarker != nil, keyMarker == nil {
            throw OSSClientError.invalidArgument("ListObjectVersions: a versionIdMarker needs its keyMarker")
        }
    }
}

extension OSSListObjectVersionsResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let xml = try await response.xml(root: Document.root)
        return try decode(xml, requestId: response.requestId)
    }

    /// Reads `<ListVersionsResult>`, keeping the order of `<Version>` and `<DeleteMarker>` elements.
    static func decode(_ xml: OSSXMLNode, requestId: String) throws -> Self {
        let decoder = OSSXMLDecoder()
        let document = try xml.decoded { try decoder.decode(Document.self, from: $0) }
        let encoded = document.encodingType == "url"
        func text(_ raw: String?, _ element: String) throws -> String? {
            try raw.map { try OSSXMLNode.decodeIfNeeded($0, urlEncoded: encoded, element: element) }
        }
        var entries: [OSSObjectVersionEntry] = []
        for node in xml.children where node.name == "Version" || node.name == "DeleteMarker" {
            let entry = try node.decoded { try decoder.decode(Entry.self, from: $0) }
            let key = try OSSXMLNode.decodeIfNeeded(entry.key, urlEncoded: encoded, element: "Key")
            let owner = entry.owner.map { OSSOwner(id: $0.id, displayName: $0.displayName) }
            if node.name == "DeleteMarker" {
                entries.append(
                    .deleteMarker(
                        OSSDeleteMarker(
                            objectKey: key, versionId: entry.versionId, isLatest: entry.isLatest ?? false,
                            lastModified: entry.lastModified, owner: owner)))
                continue
            }
            let size = entry.size ?? 0
            guard size <= UInt64(Int64.max) else {
                throw OSSClientError(.exceptionCaught, "the version \(entry.versionId) of \(key) has a size out of range")
            }
            entries.append(
                .version(
                    OSSObjectVersion(
                        objectKey: key, versionId: entry.versionId, isLatest: entry.isLatest ?? false,
                        lastModified: entry.lastModified, eTag: entry.eTag, size: Int64(size),
                        storageClass: entry.storageClass, objectType: entry.type, owner: owner,
                        restoreInfo: entry.restoreInfo, transitionTime: entry.transitionTime)))
        }
        return Self(
            bucketName: document.name ?? "", prefix: try text(document.prefix, "Prefix"),
            delimiter: try text(document.delimiter, "Delimiter"), keyMarker: try text(document.keyMarker, "KeyMarker"),
            versionIdMarker: document.versionIdMarker, maxKeys: document.maxKeys,
            isTruncated: document.isTruncated ?? false, nextKeyMarker: try text(document.nextKeyMarker, "NextKeyMarker"),
            nextVersionIdMarker: document.nextVersionIdMarker, entries: entries,
            commonPrefixes: try document.commonPrefixes.compactMap { try text($0.prefix, "Prefix") },
            requestId: requestId)
    }

    /// `<ListVersionsResult>`'s own fields; its `<Version>` and `<DeleteMarker>` children are read in order as
    /// ``Entry``.
    struct Document: OSSXMLDocument, Decodable {
        static let root = "ListVersionsResult"
        var name: String?
        var prefix: String?
        var delimiter: String?
        var keyMarker: String?
        var versionIdMarker: String?
        var nextKeyMarker: String?
        var nextVersionIdMarker: String?
        var maxKeys: Int?
        var isTruncated: Bool?
        var encodingType: String?
        var commonPrefixes: [CommonPrefix]

        struct CommonPrefix: Decodable { var prefix: String? }
    }

    /// A `<Version>` or a `<DeleteMarker>` (which has no ETag, size, type or storage class).
    struct Entry: Decodable {
        var key: String
        var versionId: String
        var isLatest: Bool?
        var lastModified: Date?
        var eTag: String?
        var size: UInt64?
        var storageClass: String?
        var type: String?
        var owner: OSSOwnerElement?
        var restoreInfo: String?
        var transitionTime: Date?
    }
}
