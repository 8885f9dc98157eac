#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif


extension OSSClient {
    /// Whether an object exists (a HEAD): a 404 answer is `false`; any other failure throws.
    public func doesObjectExist(inBucket bucketName: String, objectKey: String) async throws -> Bool {
        do {
            _ = try await headObject(OSSHeadObjectRequest(bucketName: bucketName, objectKey: objectKey))
            return true
        } catch let error as OSSServerError where error.statusCode == 404 {
            return false
        }
    }

    /// GetObjectMeta (`HEAD /key?objectMeta`): ETag, size and Last-Modified only.
    public func getObjectMeta(_ request: OSSGetObjectMetaRequest) async throws -> OSSGetObjectMetaResult {
        var operation = OSSOperation(
            name: "GetObjectMeta", method: "HEAD", bucket: request.bucketName, key: request.objectKey,
            query: ["objectMeta": ""])
        operation.setQuery("versionId", request.versionId)
        return try await execute(operation) { response in
            let length = response.contentLength ?? response.headers["x-oss-content-length"].flatMap { Int64($0) }
            guard let length, length >= 0 else {
                throw OSSClientError(.exceptionCaught, "GetObjectMeta response has no valid Content-Length")
            }
            return OSSGetObjectMetaResult(
                contentLength: length, eTag: response.eTag, lastModified: response.lastModified, crc64: response.crc64,
                versionId: response.headers["x-oss-version-id"], requestId: response.requestId,
                headers: response.publicHeaders)
        }
    }
}
