#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request signed ahead of time for a client that holds no credentials (a browser, an app): send ``method`` to
/// ``url`` with exactly ``headers`` (they are signed; a browser must not add others that are, such as a
/// `Content-Type` the URL was not signed for), before ``expiration``.
public struct OSSPresignedRequest: Sendable, Hashable {
    public var method: String
    public var url: String
    /// The headers the request must carry, as signed (`Content-Type`, `Content-MD5`).
    public var headers: [String: String]
    /// When the URL stops being accepted.
    public var expiration: Date
}

/// Typed presigning for each step of a multipart upload, so that a backend can hand a browser or an app a plan for a
/// large file: Initiate, one URL per part, ListParts (to resume after a reload), Complete and Abort.
///
/// Each URL names one bucket, key, upload and part; a client given it can do that step only. The signature version
/// is the client's (V1 `OSSAccessKeyId/Expires/Signature`, V4 `x-oss-*` query parameters; STS tokens included).
extension OSSClient {
    /// `POST /<key>?uploads`. `contentType` is the object's type, sent as the request's `Content-Type`.
    public func presignInitiateMultipartUpload(
        bucket: String, key: String, contentType: String? = nil, expiration: TimeInterval
    ) async throws -> OSSPresignedRequest {
        var headers: [String: String] = [:]
        headers["Content-Type"] = contentType
        return try await presignStep(
            bucket: bucket, key: key, method: "POST", parameters: ["uploads": ""], headers: headers,
            expiration: expiration)
    }

    /// `PUT /<key>?partNumber=<n>&uploadId=<id>`. With `contentMD5` (Base64 MD5 of the part), the part must have
    /// exactly those bytes. A browser sending a `Blob` slice sends no `Content-Type`; pass one only if the
    /// client will send it.
    public func presignUploadPart(
        bucket: String, key: String, uploadId: String, partNumber: Int, contentMD5: String? = nil,
        contentType: String? = nil, expiration: TimeInterval
    ) async throws -> OSSPresignedRequest {
        guard (1...10_000).contains(partNumber) else {
            throw OSSClientError.invalidArgument("a part number must be 1 to 10000, not \(partNumber)")
        }
        var headers: [String: String] = [:]
        headers["Content-MD5"] = contentMD5
        headers["Content-Type"] = contentType
        return try await presignStep(
            bucket: bucket, key: key, method: "PUT",
            parameters: ["uploadId": try Self.checkedUploadId(uploadId), "partNumber": String(partNumber)],
            headers: headers, expiration: expiration)
    }

    /// `GET /<key>?uploadId=<id>`: the parts uploaded so far (to resume).
    public func presignListParts(
        bucket: String, key: String, uploadId: String, maxParts: Int? = nil, partNumberMarker: Int? = nil,
        expiration: TimeInterval
    ) async throws -> OSSPresignedRequest {
        var parameters = ["uploadId": try Self.checkedUploadId(uploadId)]
        if let maxParts {
            guard (1...1000).contains(maxParts) else {
                throw OSSClientError.invalidArgument("max-parts must be 1 to 1000, not \(maxParts)")
            }
            parameters["max-parts"] = String(maxParts)
        }
        if let partNumberMarker { parameters["part-number-marker"] = String(partNumberMarker) }
        return try await presignStep(
            bucket: bucket, key: key, method: "GET", parameters: parameters, headers: [:], expiration: expiration)
    }

    /// `POST /<key>?uploadId=<id>` with the `<CompleteMultipartUpload>` XML body, sent as `contentType`
    /// (`application/xml` by default; a browser posting a string must set it explicitly). With `contentMD5`, the body
    /// must be exactly that document.
    public func presignCompleteMultipartUpload(
        bucket: String, key: String, uploadId: String, contentType: String = "application/xml",
        contentMD5: String? = nil, expiration: TimeInterval
    ) async throws -> OSSPresignedRequest {
        var headers = ["Content-Type": contentType]
        headers["Content-MD5"] = contentMD5
        return try await presignStep(
            bucket: bucket, key: key, method: "POST", parameters: ["uploadId": try Self.checkedUploadId(uploadId)],
            headers: headers, expiration: expiration)
    }

    /// `DELETE /<key>?uploadId=<id>`.
    public func presignAbortMultipartUpload(
        bucket: String, key: String, uploadId: String, expiration: TimeInterval
    ) async throws -> OSSPresignedRequest {
        try await presignStep(
            bucket: bucket, key: key, method: "DELETE", parameters: ["uploadId": try Self.checkedUploadId(uploadId)],
            headers: [:], expiration: expiration)
    }

    private func presignStep(
        bucket: String, key: String, method: String, parameters: [String: String], headers: [String: String],
        expiration: TimeInterval
    ) async throws -> OSSPresignedRequest {
        let start = await clock.now()
        let url = try await presignConstrainURL(
            bucket: bucket, key: key, method: method, expiration: expiration, parameters: parameters, headers: headers)
        return OSSPresignedRequest(
            method: method, url: url, headers: headers, expiration: start.addingTimeInterval(expiration.rounded(.up)))
    }

    private static func checkedUploadId(_ uploadId: String) throws -> String {
        guard !uploadId.isEmpty else { throw OSSClientError.invalidArgument("the upload id is empty") }
        return uploadId
    }
}
