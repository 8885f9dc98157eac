#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import NIOCore
import OSSXML

extension OSSClient {
    /// DeleteMultipleObjects (`POST /?delete`): deletes 1 to 1000 objects in one request, keys URL-encoded both
    /// ways. Quiet mode returns no keys.
    public func deleteMultipleObjects(_ request: OSSDeleteMultipleObjectsRequest) async throws
        -> OSSDeleteMultipleObjectsResult
    {
        guard (1...OSSDeleteMultipleObjectsRequest.maximumKeys).contains(request.keys.count) else {
            throw OSSClientError.invalidArgument(
                "DeleteMultipleObjects takes 1 to \(OSSDeleteMultipleObjectsRequest.maximumKeys) keys, not \(request.keys.count)")
        }
        for key in request.keys { try OSSRequestBuilder.validateObjectKey(key) }
        var writer = OSSXMLWriter()
        writer.element("Delete") { w in
            w.element("Quiet", request.quiet ? "true" : "false")
            for key in request.keys {
                w.element("Object") { o in o.element("Key", OSSPercentEncoding.encode(key, keepSlash: true)) }
            }
        }
        let body = Array(writer.output.utf8)
        var operation = OSSOperation(
            name: "DeleteMultipleObjects", method: "POST", bucket: request.bucketName,
            query: ["delete": "", "encoding-type": "url"], body: .bytes(ByteBuffer(bytes: body)))
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

    /// Deletes any number of objects, 1000 per DeleteMultipleObjects request, one request at a time. Returns
    /// how many keys were sent. An empty list sends nothing.
    @discardableResult
    public func deleteObjects(_ keys: [String], inBucket bucketName: String) async throws -> Int {
        for key in keys { try OSSRequestBuilder.validateObjectKey(key) }
        var start = 0
        while start < keys.count {
            try Task.checkCancellation()
            let end = min(keys.count, start + OSSDeleteMultipleObjectsRequest.maximumKeys)
            _ = try await deleteMultipleObjects(
                OSSDeleteMultipleObjectsRequest(bucketName: bucketName, keys: Array(keys[start..<end]), quiet: true))
            start = end
        }
        return keys.count
    }
}
