#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSXML

extension OSSClient {
    /// PutBucket: creates `bucketName`.
    @discardableResult
    public func putBucket(_ request: OSSPutBucketRequest) async throws -> OSSBucketResult {
        var operation = OSSOperation(name: "PutBucket", method: "PUT", bucket: request.bucketName)
        operation.setHeader("x-oss-acl", request.acl)
        var writer = OSSXMLWriter()
        writer.element("CreateBucketConfiguration") { w in
            w.element("StorageClass", ifPresent: request.storageClass)
        }
        operation.body = .bytes(Data(writer.output.utf8))
        operation.setHeader("content-type", "application/xml")
        return try await execute(operation) { response in
            try await response.body.drain()
            return OSSBucketResult(statusCode: response.status, requestId: response.requestId)
        }
    }

    /// DeleteBucket: deletes an empty bucket (`BucketNotEmpty` otherwise).
    @discardableResult
    public func deleteBucket(_ request: OSSDeleteBucketRequest) async throws -> OSSBucketResult {
        let operation = OSSOperation(name: "DeleteBucket", method: "DELETE", bucket: request.bucketName)
        return try await execute(operation) { response in
            try await response.body.drain()
            return OSSBucketResult(statusCode: response.status, requestId: response.requestId)
        }
    }

    /// ListBuckets: the buckets of the account.
    public func listBuckets(_ request: OSSListBucketsRequest = OSSListBucketsRequest()) async throws
        -> OSSListBucketsResult
    {
        var operation = OSSOperation(name: "ListBuckets", method: "GET")
        operation.setQuery("prefix", request.prefix)
        operation.setQuery("marker", request.marker)
        operation.setQuery("max-keys", request.maxKeys.map(String.init))
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "ListAllMyBucketsResult")
            var buckets: [OSSBucketSummary] = []
            for node in xml.child("Buckets")?.children("Bucket") ?? [] {
                guard let name = node.string("Name") else {
                    throw OSSClientError(.exceptionCaught, "a <Bucket> has no <Name>")
                }
                buckets.append(
                    OSSBucketSummary(
                        name: name, location: node.string("Location"), creationDate: node.date("CreationDate"),
                        storageClass: node.string("StorageClass"), region: node.string("Region")))
            }
            return OSSListBucketsResult(
                buckets: buckets, isTruncated: try xml.decoded { try $0.bool("IsTruncated") } ?? false,
                nextMarker: xml.string("NextMarker"), requestId: response.requestId)
        }
    }
}
