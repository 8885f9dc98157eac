#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

extension OSSClient {
    /// PutSymlink (`PUT /key?symlink` with `x-oss-symlink-target`, URL-encoded).
    public func putSymlink(_ request: OSSPutSymlinkRequest) async throws -> OSSPutSymlinkResult {
        try OSSRequestBuilder.validateObjectKey(request.targetObjectName)
        var operation = OSSOperation(
            name: "PutSymlink", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            query: ["symlink": ""], headers: request.headers)
        operation.setHeader("x-oss-symlink-target", OSSPercentEncoding.encode(request.targetObjectName, keepSlash: true))
        OSSObjectMetadata.apply(request.metadata, to: &operation)
        return try await execute(operation) { response in
            try await response.body.drain()
            return OSSPutSymlinkResult(
                eTag: response.eTag, versionId: response.headers["x-oss-version-id"], requestId: response.requestId)
        }
    }

    /// GetSymlink (`GET /key?symlink`): the target's key. A key that is not a symlink is 400 `NotSymlink`.
    public func getSymlink(_ request: OSSGetSymlinkRequest) async throws -> OSSGetSymlinkResult {
        var operation = OSSOperation(
            name: "GetSymlink", method: "GET", bucket: request.bucketName, key: request.objectKey,
            query: ["symlink": ""])
        operation.setQuery("versionId", request.versionId)
        return try await execute(operation) { response in
            try await response.body.drain()
            guard let raw = response.headers["x-oss-symlink-target"] else {
                throw OSSClientError(.exceptionCaught, "GetSymlink response has no x-oss-symlink-target")
            }
            guard let target = OSSPercentEncoding.decode(raw) else {
                throw OSSClientError(.exceptionCaught, "x-oss-symlink-target is not valid percent-encoding")
            }
            return OSSGetSymlinkResult(
                targetObjectName: target, eTag: response.eTag, lastModified: response.lastModified,
                versionId: response.headers["x-oss-version-id"], requestId: response.requestId)
        }
    }
}
