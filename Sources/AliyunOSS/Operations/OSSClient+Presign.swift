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
    /// With an ``OSSCustomSignerCredentialProvider`` (V1 only), the signer is given the URL's string to sign, as in
    /// the iOS SDK, and its `OSS <AccessKeyId>:<Signature>` answer becomes the URL's `OSSAccessKeyId` and
    /// `Signature`. With an ``OSSRemoteSignerCredentialProvider`` (V1 or V4), the remote signer signs the URL.
    ///
    /// - Throws: `.invalidArgument` for a non-positive expiration, or over 7 days with V4; `.signFailed` for
    ///   unusable credentials, a custom signer with V4 or a custom signer's unusable answer.
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
        var trimmed: [String: String] = [:]
        for (name, value) in headers { trimmed[name] = value.trimmingCharactersInWhitespace() }
        var signable = OSSSignableRequest(method: method, bucket: bucket, key: key, query: parameters, headers: trimmed)
        let base = builder.urlWithoutQuery(bucket: bucket, key: key)
        if let custom = credentialProvider as? OSSCustomSignerCredentialProvider {
            try await custom.presign(&signable, signatureVersion: configuration.signatureVersion, date: clock.now(), expiresIn: seconds)
            return base + "?" + OSSPercentEncoding.encodeQuery(signable.query)
        }
        if let remote = credentialProvider as? OSSRemoteSignerCredentialProvider {
            try await signing.signRemotely(&signable, signer: remote, date: clock.now(), presignExpiresIn: seconds)
            return base + "?" + OSSPercentEncoding.encodeQuery(signable.query)
        }
        let credentials = try await presigningCredentials()
        let signer = try signing.makeSigner()
        let now = await clock.now()
        do {
            try signer.presign(&signable, credentials: credentials, date: now, expiresIn: seconds)
        } catch {
            if error.code == .invalidExpiration { throw OSSClientError.invalidArgument(error.message) }
            throw OSSClientError(.signFailed, "cannot presign: \(error)", underlying: error)
        }
        return base + "?" + OSSPercentEncoding.encodeQuery(signable.query)
    }

    /// A presigned URL that carries an upload callback (for a PUT or a multipart Complete), given as the iOS
    /// `callbackParam` / `callbackVar` dictionaries: the SDK encodes them (Base64 JSON) as the signed query
    /// parameters `callback` and `callback-var`.
    public func presignConstrainURL(
        bucket: String, key: String, method: String = "PUT", expiration: TimeInterval,
        parameters: [String: String] = [:], headers: [String: String] = [:], callbackParam: [String: String],
        callbackVar: [String: String]? = nil
    ) async throws -> String {
        let encoded = try OSSCallbackHeaders.make(typed: nil, parameters: callbackParam, variables: callbackVar)
        return try await presignConstrainURL(
            bucket: bucket, key: key, method: method, expiration: expiration,
            parameters: parameters.merging(Self.callbackQuery(encoded)) { $1 }, headers: headers)
    }

    /// A presigned URL that carries a typed upload callback (signed query parameters `callback`, `callback-var`).
    public func presignConstrainURL(
        bucket: String, key: String, method: String = "PUT", expiration: TimeInterval,
        parameters: [String: String] = [:], headers: [String: String] = [:], callback: OSSCallback
    ) async throws -> String {
        let encoded = try OSSCallbackHeaders.make(typed: callback, parameters: nil, variables: nil)
        return try await presignConstrainURL(
            bucket: bucket, key: key, method: method, expiration: expiration,
            parameters: parameters.merging(Self.callbackQuery(encoded)) { $1 }, headers: headers)
    }

    /// The credentials to presign with; a provider's failure is `.signFailed` (cancellation stays cancellation).
    func presigningCredentials() async throws -> OSSCredentials {
        do {
            return try await credentialProvider.credentials()
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.signFailed, "the credential provider failed", underlying: $0)
            }
        }
    }

    /// The callback headers as presigned-URL query parameters.
    static func callbackQuery(_ headers: [String: String]) -> [String: String] {
        var query: [String: String] = [:]
        query["callback"] = headers["x-oss-callback"]
        query["callback-var"] = headers["x-oss-callback-var"]
        return query
    }

    /// The unsigned URL of a public-read object.
    public func presignPublicURL(bucket: String, key: String) throws -> String {
        try OSSRequestBuilder.validateBucketName(bucket)
        try OSSRequestBuilder.validateObjectKey(key)
        return builder.urlWithoutQuery(bucket: bucket, key: key)
    }
}
