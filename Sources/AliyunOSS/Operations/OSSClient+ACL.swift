#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

extension OSSClient {
    /// PutObjectACL (`PUT /key?acl` with `x-oss-object-acl`).
    @discardableResult
    public func putObjectACL(_ request: OSSPutObjectACLRequest) async throws -> OSSEmptyResult {
        let operation = OSSOperation(
            name: "PutObjectACL", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            query: ["acl": ""], headers: ["x-oss-object-acl": request.acl.rawValue])
        return try await executeEmpty(operation)
    }

    /// GetObjectACL (`GET /key?acl`): `default` means the bucket's ACL applies.
    public func getObjectACL(_ request: OSSGetObjectACLRequest) async throws -> OSSGetACLResult {
        let operation = OSSOperation(
            name: "GetObjectACL", method: "GET", bucket: request.bucketName, key: request.objectKey, query: ["acl": ""])
        return try await executeACL(operation)
    }

    /// PutBucketACL (`PUT /?acl` with `x-oss-acl`).
    @discardableResult
    public func putBucketACL(_ request: OSSPutBucketACLRequest) async throws -> OSSEmptyResult {
        guard request.acl != .default else {
            throw OSSClientError.invalidArgument("a bucket ACL is private, public-read or public-read-write, not default")
        }
        let operation = OSSOperation(
            name: "PutBucketACL", method: "PUT", bucket: request.bucketName, query: ["acl": ""],
            headers: ["x-oss-acl": request.acl.rawValue])
        return try await executeEmpty(operation)
    }

    /// GetBucketACL (`GET /?acl`).
    public func getBucketACL(_ request: OSSGetBucketACLRequest) async throws -> OSSGetACLResult {
        let operation = OSSOperation(name: "GetBucketACL", method: "GET", bucket: request.bucketName, query: ["acl": ""])
        return try await executeACL(operation)
    }

    private func executeACL(_ operation: OSSOperation) async throws -> OSSGetACLResult {
        try await execute(operation) { response in
            let xml = try await response.xml(root: "AccessControlPolicy")
            guard let grant = xml.child("AccessControlList")?.string("Grant") else {
                throw OSSClientError(.exceptionCaught, "\(operation.name) response has no <Grant>")
            }
            return OSSGetACLResult(
                grant: OSSACL(rawValue: grant), ownerId: xml.child("Owner")?.string("ID"), requestId: response.requestId)
        }
    }

    /// Runs an operation whose successful answer carries nothing but its status and request id.
    func executeEmpty(_ operation: OSSOperation) async throws -> OSSEmptyResult {
        try await execute(operation) { response in
            try await response.body.drain()
            return OSSEmptyResult(statusCode: response.status, requestId: response.requestId)
        }
    }
}
