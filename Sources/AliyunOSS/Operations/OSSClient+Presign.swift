#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// A presigned URL for `method` on `bucket/key`, valid for `expiration` seconds, signed with the client's
    /// signature version (V1: `OSSAccessKeyId/Expires/Signature`; V4: `x-oss-*` query parameters). STS
    /// tokens are included. Multipart operations are presigned through `parameters` (e.g. `uploadId` and
    /// `partNumber` for UploadPart, `uploads` with an empty value for InitiateMultipartUpload).
    ///
    /// `headers` (`Content-Type`, `Content-MD5`, `x-oss-*`) are signed and must be sent with the URL.
    ///
    /// - Throws: `.invalidArgument` for a non-positive expiration, or over 7 days with V4; `.signFailed` with a
    ///   custom signer or unusable credentials.
    public func presignConstrainURL(
        bucket: String, key: String, method: String = "GET", expiration: TimeInterval,
        parameters: [String: String] = [:], headers: [String: String] = [:]
    ) async throws -> String {
        try OSSRequestBuilder.validateBucketName(bucket)
        try OSSRequestBuilder.validateObjectKey(key)
        let method = method.uppercased()
        guard ["GET", "HEAD", "PUT", "POST", "DELETE"].contains(method) else {
            throw OSSClientError.invalidArgument("cannot presign the method \(method)")
        }
        guard expiration.isFinite, expiration >= 1 else {
            throw OSSClientError.invalidArgument("a presigned URL must expire at least one second from now")
        }
        let seconds = Int64(expiration.rounded(.up))
        if configuration.signatureVersion == .v4, seconds > OSSSignerV4.maximumPresignExpiry {
            throw OSSClientError.invalidArgument(
                "a V4 presigned URL can live at most \(OSSSignerV4.maximumPresignExpiry) seconds (7 days), not \(seconds)")
        }
        if credentialProvider is OSSCustomSignerCredentialProvider {
            throw OSSClientError(.signFailed, "presigning is not supported with a custom signer")
        }
        let credentials: OSSCredentials
        do {
            credentials = try await credentialProvider.credentials()
        } catch let error as OSSClientError {
            throw error
        } catch {
            throw OSSClientError(.signFailed, "the credential provider failed", underlying: error)
        }
        var trimmed: [String: String] = [:]
        for (name, value) in headers { trimmed[name] = value.trimmingCharactersInWhitespace() }
        var signable = OSSSignableRequest(method: method, bucket: bucket, key: key, query: parameters, headers: trimmed)
        let signer = try signing.makeSigner()
        let now = await clock.now()
        do {
            try signer.presign(&signable, credentials: credentials, date: now, expiresIn: seconds)
        } catch {
            if error.code == .invalidExpiration { throw OSSClientError.invalidArgument(error.message) }
            throw OSSClientError(.signFailed, "cannot presign: \(error)", underlying: error)
        }
        let base = builder.urlWithoutQuery(bucket: bucket, key: key)
        return base + "?" + OSSPercentEncoding.encodeQuery(signable.query)
    }

    /// The unsigned URL of a public-read object.
    public func presignPublicURL(bucket: String, key: String) throws -> String {
        try OSSRequestBuilder.validateBucketName(bucket)
        try OSSRequestBuilder.validateObjectKey(key)
        return builder.urlWithoutQuery(bucket: bucket, key: key)
    }
}
