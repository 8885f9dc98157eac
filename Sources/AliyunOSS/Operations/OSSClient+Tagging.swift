#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

extension OSSClient {
    /// PutObjectTagging (`PUT /key?tagging`): replaces the object's tags (checked against OSS's limits first).
    @discardableResult
    public func putObjectTagging(_ request: OSSPutObjectTaggingRequest) async throws -> OSSEmptyResult {
        try OSSObjectTagging.validate(request.tags)
        var writer = OSSXMLWriter()
        writer.element("Tagging") { t in
            t.element("TagSet") { s in
                for (key, value) in request.tags.sorted(by: { $0.key < $1.key }) {
                    s.element("Tag") { tag in
                        tag.element("Key", key)
                        tag.element("Value", value)
                    }
                }
            }
        }
        let body = Array(writer.output.utf8)
        var operation = OSSOperation(
            name: "PutObjectTagging", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            query: ["tagging": ""], body: .bytes(Data(body)))
        operation.setHeader("content-type", "application/xml")
        operation.setHeader("content-md5", OSSFileDigest.contentMD5(body))
        return try await executeEmpty(operation)
    }

    /// GetObjectTagging (`GET /key?tagging`).
    public func getObjectTagging(_ request: OSSGetObjectTaggingRequest) async throws -> OSSGetObjectTaggingResult {
        let operation = OSSOperation(
            name: "GetObjectTagging", method: "GET", bucket: request.bucketName, key: request.objectKey,
            query: ["tagging": ""])
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "Tagging")
            var tags: [String: String] = [:]
            for node in xml.child("TagSet")?.children("Tag") ?? [] {
                guard let key = node.string("Key") else {
                    throw OSSClientError(.exceptionCaught, "a <Tag> has no <Key>")
                }
                tags[key] = node.string("Value") ?? ""
            }
            return OSSGetObjectTaggingResult(tags: tags, requestId: response.requestId)
        }
    }

    /// DeleteObjectTagging (`DELETE /key?tagging`).
    @discardableResult
    public func deleteObjectTagging(_ request: OSSDeleteObjectTaggingRequest) async throws -> OSSEmptyResult {
        let operation = OSSOperation(
            name: "DeleteObjectTagging", method: "DELETE", bucket: request.bucketName, key: request.objectKey,
            query: ["tagging": ""])
        return try await executeEmpty(operation)
    }
}
