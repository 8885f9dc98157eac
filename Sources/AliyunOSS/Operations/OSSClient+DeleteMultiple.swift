#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

extension OSSClient {
    /// DeleteMultipleObjects (`POST /?delete`): deletes 1 to 1000 objects in one request. Keys go out as XML text
    /// and come back URL-encoded (`encoding-type=url`). A key XML cannot carry exactly (control characters,
    /// `\r`) is refused with `.invalidArgument` rather than silently altered; ``deleteObjects(_:inBucket:)``
    /// deletes such keys one by one.
    public func deleteMultipleObjects(_ request: OSSDeleteMultipleObjectsRequest) async throws
        -> OSSDeleteMultipleObjectsResult
    {
        try await perform(request)
    }

    /// Deletes any number of objects, 1000 per DeleteMultipleObjects request, one request at a time (keys XML
    /// cannot carry are deleted with DeleteObject). Returns how many keys were deleted. An empty list sends
    /// nothing. On a versioned bucket this adds a delete marker per key; name the versions to remove them.
    @discardableResult
    public func deleteObjects(_ allKeys: [String], inBucket bucketName: String) async throws -> Int {
        try await deleteObjects(allKeys.map { OSSObjectIdentifier(objectKey: $0) }, inBucket: bucketName, quiet: true)
            .count
    }

    /// Deletes any number of objects or object versions, 1000 per DeleteMultipleObjects request, one request at
    /// a time (keys XML cannot carry are deleted with DeleteObject). Returns what each delete did: the version
    /// removed, or the delete marker added. An empty list sends nothing.
    @discardableResult
    public func deleteObjects(_ objects: [OSSObjectIdentifier], inBucket bucketName: String) async throws
        -> [OSSDeletedObject]
    {
        try await deleteObjects(objects, inBucket: bucketName, quiet: false)
    }

    /// ``deleteObjects(_:inBucket:)``; in quiet mode the result is the request's objects.
    private func deleteObjects(_ all: [OSSObjectIdentifier], inBucket bucketName: String, quiet: Bool) async throws
        -> [OSSDeletedObject]
    {
        for object in all { try OSSRequestBuilder.validateObjectKey(object.objectKey) }
        var deleted: [OSSDeletedObject] = []
        for object in all where !Self.isXMLSafe(object.objectKey) {
            let one = try await deleteObject(
                OSSDeleteObjectRequest(bucketName: bucketName, objectKey: object.objectKey, versionId: object.versionId))
            deleted.append(
                OSSDeletedObject(
                    objectKey: object.objectKey, versionId: object.versionId, deleteMarker: one.deleteMarker,
                    deleteMarkerVersionId: one.deleteMarker ? one.versionId : nil))
        }
        let objects = all.filter { Self.isXMLSafe($0.objectKey) }
        var start = 0
        while start < objects.count {
            try Task.checkCancellation()
            let end = min(objects.count, start + OSSDeleteMultipleObjectsRequest.maximumKeys)
            let batch = Array(objects[start..<end])
            let result = try await deleteMultipleObjects(
                OSSDeleteMultipleObjectsRequest(bucketName: bucketName, objects: batch, quiet: quiet))
            deleted += quiet ? batch.map { OSSDeletedObject(objectKey: $0.objectKey, versionId: $0.versionId) } : result.deleted
            start = end
        }
        return deleted
    }

    /// Whether XML 1.0 carries `text` unchanged (no control characters but tab and newline; `\r` would be
    /// normalised to `\n` by the parser).
    static func isXMLSafe(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { u in
            switch u.value {
            case 0x9, 0xA: return true
            case 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
            default: return false
            }
        }
    }
}

extension OSSDeleteMultipleObjectsRequest: OSSBucketOperation {
    typealias Result = OSSDeleteMultipleObjectsResult
    var api: OSSAPI { OSSAPI("DeleteMultipleObjects", "POST", subresource: "delete") }
    static var parameters: [OSSParameter<Self>] { [.query("encoding-type", \.encodingType)] }
    var encodingType: String { "url" }
    var body: Document? {
        Document(quiet: quiet, object: objects.map { Document.Object(key: $0.objectKey, versionId: $0.versionId) })
    }

    func validate() throws {
        guard (1...Self.maximumKeys).contains(objects.count) else {
            throw OSSClientError.invalidArgument(
                "DeleteMultipleObjects takes 1 to \(Self.maximumKeys) keys, not \(objects.count)")
        }
        for object in objects {
            try OSSRequestBuilder.validateObjectKey(object.objectKey)
            guard OSSClient.isXMLSafe(object.objectKey) else {
                throw OSSClientError.invalidArgument(
                    "the key \(object.objectKey.debugDescription.prefix(80)) has characters an XML document cannot carry; delete it with deleteObject")
            }
            if let versionId = object.versionId, versionId.isEmpty || !OSSClient.isXMLSafe(versionId) {
                throw OSSClientError.invalidArgument("the version id of \(object.objectKey.debugDescription.prefix(80)) is empty or not XML text")
            }
        }
    }

    /// `<Delete><Quiet>…</Quiet><Object><Key>…</Key><VersionId>…</VersionId></Object>…</Delete>`.
    struct Document: OSSXMLDocument, Encodable {
        static let root = "Delete"
        var quiet: Bool
        var object: [Object]

        struct Object: Encodable {
            var key: String
            var versionId: String?
        }
    }
}

extension OSSDeleteMultipleObjectsResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let document = try await response.xml(Document.self)
        let encoded = document.encodingType == "url"
        let deleted = try document.deleted.map { entry in
            OSSDeletedObject(
                objectKey: try OSSXMLNode.decodeIfNeeded(entry.key, urlEncoded: encoded, element: "Key"),
                versionId: entry.versionId, deleteMarker: entry.deleteMarker ?? false,
                deleteMarkerVersionId: entry.deleteMarkerVersionId)
        }
        return Self(deletedObjects: deleted.map(\.objectKey), deleted: deleted, requestId: response.requestId)
    }

    /// `<DeleteResult><EncodingType>url</EncodingType><Deleted><Key>…</Key>…</Deleted>…</DeleteResult>`.
    struct Document: OSSXMLDocument, Decodable {
        static let root = "DeleteResult"
        var encodingType: String?
        var deleted: [Deleted]

        struct Deleted: Decodable {
            var key: String
            var versionId: String?
            var deleteMarker: Bool?
            var deleteMarkerVersionId: String?
        }
    }
}
