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
        guard (1...OSSDeleteMultipleObjectsRequest.maximumKeys).contains(request.keys.count) else {
            throw OSSClientError.invalidArgument(
                "DeleteMultipleObjects takes 1 to \(OSSDeleteMultipleObjectsRequest.maximumKeys) keys, not \(request.keys.count)")
        }
        for key in request.keys {
            try OSSRequestBuilder.validateObjectKey(key)
            guard Self.isXMLSafe(key) else {
                throw OSSClientError.invalidArgument(
                    "the key \(key.debugDescription.prefix(80)) has characters an XML document cannot carry; delete it with deleteObject")
            }
        }
        var writer = OSSXMLWriter()
        writer.element("Delete") { w in
            w.element("Quiet", request.quiet ? "true" : "false")
            for key in request.keys {
                w.element("Object") { o in o.element("Key", key) }
            }
        }
        let body = Array(writer.output.utf8)
        var operation = OSSOperation(
            name: "DeleteMultipleObjects", method: "POST", bucket: request.bucketName,
            query: ["delete": "", "encoding-type": "url"], body: .bytes(Data(body)))
        operation.setHeader("content-type", "application/xml")
        operation.setHeader("content-md5", OSSFileDigest.contentMD5(body))
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "DeleteResult")
            let encoded = xml.string("EncodingType") == "url"
            var deleted: [String] = []
            for node in xml.children("Deleted") {
                if let key = try node.decodedText("Key", urlEncoded: encoded) { deleted.append(key) }
            }
            return OSSDeleteMultipleObjectsResult(deletedObjects: deleted, requestId: response.requestId)
        }
    }

    /// Deletes any number of objects, 1000 per DeleteMultipleObjects request, one request at a time (keys XML
    /// cannot carry are deleted with DeleteObject). Returns how many keys were deleted. An empty list sends
    /// nothing.
    @discardableResult
    public func deleteObjects(_ allKeys: [String], inBucket bucketName: String) async throws -> Int {
        for key in allKeys { try OSSRequestBuilder.validateObjectKey(key) }
        let keys = allKeys.filter { Self.isXMLSafe($0) }
        for key in allKeys where !Self.isXMLSafe(key) {
            try await deleteObject(OSSDeleteObjectRequest(bucketName: bucketName, objectKey: key))
        }
        var start = 0
        while start < keys.count {
            try Task.checkCancellation()
            let end = min(keys.count, start + OSSDeleteMultipleObjectsRequest.maximumKeys)
            _ = try await deleteMultipleObjects(
                OSSDeleteMultipleObjectsRequest(bucketName: bucketName, keys: Array(keys[start..<end]), quiet: true))
            start = end
        }
        return allKeys.count
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
