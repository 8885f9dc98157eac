#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

import OSSXML

extension OSSClient {
    /// CopyObject (`PUT /key` with `x-oss-copy-source`): a server-side copy, within a bucket or across buckets.
    /// The source key is URL-encoded in the header, so any key works.
    public func copyObject(_ request: OSSCopyObjectRequest) async throws -> OSSCopyObjectResult {
        try OSSRequestBuilder.validateBucketName(request.sourceBucketName)
        try OSSRequestBuilder.validateObjectKey(request.sourceObjectKey)
        var operation = OSSOperation(
            name: "CopyObject", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            headers: request.headers)
        try Self.applyCopySource(
            to: &operation, bucket: request.sourceBucketName, key: request.sourceObjectKey,
            versionId: request.sourceVersionId, conditions: request.conditions)
        operation.setHeader("content-type", request.contentType)
        OSSObjectMetadata.apply(request.metadata, to: &operation)
        if let directive = request.metadataDirective {
            operation.setHeader("x-oss-metadata-directive", directive.rawValue)
        } else if operation.headers["x-oss-metadata-directive"] == nil {
            // Only entries the object keeps ask for REPLACE: an ACL or storage class alone still copies the metadata.
            let replace = request.contentType != nil || request.metadata.keys.contains(where: OSSObjectMetadata.isObjectMetadata)
            operation.setHeader("x-oss-metadata-directive", (replace ? OSSMetadataDirective.replace : .copy).rawValue)
        }
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "CopyObjectResult")
            return OSSCopyObjectResult(
                eTag: xml.string("ETag") ?? response.eTag, lastModified: xml.date("LastModified"), crc64: response.crc64,
                versionId: response.headers["x-oss-version-id"],
                sourceVersionId: response.headers["x-oss-copy-source-version-id"], requestId: response.requestId,
                headers: response.publicHeaders)
        }
    }

    /// UploadPartCopy (`PUT /key?partNumber=n&uploadId=id` with `x-oss-copy-source`): a part copied from a byte
    /// range of an existing object.
    public func uploadPartCopy(_ request: OSSUploadPartCopyRequest) async throws -> OSSUploadPartCopyResult {
        try Self.requireUploadId(request.uploadId)
        guard (1...10_000).contains(request.partNumber) else {
            throw OSSClientError.invalidArgument("part numbers run from 1 to 10000, not \(request.partNumber)")
        }
        try OSSRequestBuilder.validateBucketName(request.sourceBucketName)
        try OSSRequestBuilder.validateObjectKey(request.sourceObjectKey)
        if let range = request.sourceRange, range.lowerBound < 0 {
            throw OSSClientError.invalidArgument("a copy range cannot start before byte 0")
        }
        var operation = OSSOperation(
            name: "UploadPartCopy", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            query: ["partNumber": String(request.partNumber), "uploadId": request.uploadId], headers: request.headers)
        try Self.applyCopySource(
            to: &operation, bucket: request.sourceBucketName, key: request.sourceObjectKey,
            versionId: request.sourceVersionId, conditions: request.conditions)
        operation.setHeader(
            "x-oss-copy-source-range", request.sourceRange.map { "bytes=\($0.lowerBound)-\($0.upperBound)" })
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "CopyPartResult")
            guard let eTag = xml.string("ETag") ?? response.eTag else {
                throw OSSClientError(.exceptionCaught, "UploadPartCopy response has no ETag")
            }
            return OSSUploadPartCopyResult(
                partNumber: request.partNumber, eTag: eTag, lastModified: xml.date("LastModified"),
                crc64: response.crc64, sourceVersionId: response.headers["x-oss-copy-source-version-id"],
                requestId: response.requestId)
        }
    }

    /// `x-oss-copy-source: /bucket/<url-encoded key>[?versionId=<id>]` and the copy conditions.
    static func applyCopySource(
        to operation: inout OSSOperation, bucket: String, key: String, versionId: String?,
        conditions: OSSCopySourceConditions
    ) throws {
        var source = "/\(bucket)/\(OSSPercentEncoding.encode(key))"
        if let versionId {
            guard !versionId.isEmpty, versionId.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "&" && $0 != "#" })
            else {
                throw OSSClientError.invalidArgument("the source version id \(versionId.debugDescription.prefix(80)) is not one OSS gives")
            }
            source += "?versionId=\(versionId)"
        }
        operation.setHeader("x-oss-copy-source", source)
        operation.setHeader("x-oss-copy-source-if-match", conditions.ifMatch)
        operation.setHeader("x-oss-copy-source-if-none-match", conditions.ifNoneMatch)
        operation.setHeader(
            "x-oss-copy-source-if-modified-since", conditions.ifModifiedSince.map { OSSDateFormat.rfc1123($0) })
        operation.setHeader(
            "x-oss-copy-source-if-unmodified-since", conditions.ifUnmodifiedSince.map { OSSDateFormat.rfc1123($0) })
    }
}
