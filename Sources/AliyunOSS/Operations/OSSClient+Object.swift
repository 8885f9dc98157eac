#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// HeadObject: the object's size, ETag, Last-Modified, CRC-64, type and metadata.
    ///
    /// A failed HEAD has no body; its error is decoded from the `x-oss-err` header.
    public func headObject(_ request: OSSHeadObjectRequest) async throws -> OSSHeadObjectResult {
        var operation = OSSOperation(
            name: "HeadObject", method: "HEAD", bucket: request.bucketName, key: request.objectKey,
            headers: request.headers)
        operation.isAuthenticationRequired = request.isAuthenticationRequired
        operation.setQuery("versionId", request.versionId)
        Self.applyConditions(
            to: &operation, ifMatch: request.ifMatch, ifNoneMatch: request.ifNoneMatch,
            ifModifiedSince: request.ifModifiedSince, ifUnmodifiedSince: request.ifUnmodifiedSince)
        return try await execute(operation) { response in
            guard let length = response.contentLength, length >= 0 else {
                throw OSSClientError(.exceptionCaught, "HeadObject response has no valid Content-Length")
            }
            return OSSHeadObjectResult(
                contentLength: length, eTag: response.eTag, lastModified: response.lastModified,
                crc64: response.crc64, contentType: response.headers["content-type"],
                objectType: response.headers["x-oss-object-type"],
                storageClass: response.headers["x-oss-storage-class"],
                versionId: response.headers["x-oss-version-id"], metadata: response.userMetadata,
                requestId: response.requestId, headers: response.publicHeaders)
        }
    }

    /// DeleteObject. Deleting a missing object succeeds (204), as on OSS. On a versioned bucket a delete without a
    /// version id adds a delete marker (``OSSDeleteObjectResult/deleteMarker``, its id in
    /// ``OSSDeleteObjectResult/versionId``); with one it removes that version.
    @discardableResult
    public func deleteObject(_ request: OSSDeleteObjectRequest) async throws -> OSSDeleteObjectResult {
        var operation = OSSOperation(
            name: "DeleteObject", method: "DELETE", bucket: request.bucketName, key: request.objectKey)
        operation.setQuery("versionId", request.versionId)
        return try await execute(operation) { response in
            try await response.body.drain()
            return OSSDeleteObjectResult(
                statusCode: response.status, versionId: response.headers["x-oss-version-id"],
                deleteMarker: response.headers["x-oss-delete-marker"]?.lowercased() == "true",
                requestId: response.requestId)
        }
    }

    static func applyConditions(
        to operation: inout OSSOperation, ifMatch: String?, ifNoneMatch: String?, ifModifiedSince: Date?,
        ifUnmodifiedSince: Date?
    ) {
        operation.setHeader("if-match", ifMatch)
        operation.setHeader("if-none-match", ifNoneMatch)
        operation.setHeader("if-modified-since", ifModifiedSince.map { OSSDateFormat.rfc1123($0) })
        operation.setHeader("if-unmodified-since", ifUnmodifiedSince.map { OSSDateFormat.rfc1123($0) })
    }
}
