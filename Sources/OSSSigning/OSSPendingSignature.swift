#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A request made ready for a signature computed elsewhere (a remote signer holding the secret): every header or
/// query parameter but the signature is in place, and ``stringToSign`` is what the secret must sign. ``apply(_:to:)``
/// then puts the signature where the version wants it.
public struct OSSPendingSignature: Sendable, Hashable {
    public enum Placement: Sendable, Hashable {
        /// `Authorization: <prefix><signature>`.
        case authorizationHeader(prefix: String, suffix: String)
        /// A query parameter of a presigned URL.
        case query(name: String)
    }

    public var version: OSSSignatureVersion
    /// What the secret signs: V1 the string to sign (base64 HMAC-SHA1), V4 the string to sign (hex HMAC-SHA256 with
    /// the signing key of ``day`` and the scope's region and product).
    public var stringToSign: String
    /// V4: the canonical request the string to sign hashes, so a signer can check what it signs; `nil` for V1 (whose
    /// string to sign is readable as is).
    public var canonicalRequest: String?
    /// The access key id the signature must be made with.
    public var accessKeyId: String
    public var placement: Placement

    /// Puts `signature` into `request`.
    public func apply(_ signature: String, to request: inout OSSSignableRequest) {
        switch placement {
        case .authorizationHeader(let prefix, let suffix):
            request[header: "authorization"] = prefix + signature + suffix
        case .query(let name):
            request.query[name] = signature
        }
    }
}

extension OSSSignerV1 {
    /// ``sign(_:credentials:date:)`` without the secret: the token and date headers are set, the signature is left to
    /// the caller.
    public func prepareSigning(
        _ request: inout OSSSignableRequest, accessKeyId: String, securityToken: String?, date: Date
    ) -> OSSPendingSignature {
        if let securityToken, !securityToken.isEmpty { request[header: "x-oss-security-token"] = securityToken }
        if request[header: "x-oss-date"] == nil { request[header: "date"] = OSSDateFormat.rfc1123(date) }
        let dateLine = request[header: "x-oss-date"] ?? request[header: "date"] ?? ""
        return OSSPendingSignature(
            version: .v1, stringToSign: Self.stringToSign(for: request, dateLine: dateLine), canonicalRequest: nil,
            accessKeyId: accessKeyId, placement: .authorizationHeader(prefix: "OSS \(accessKeyId):", suffix: ""))
    }

    /// ``presign(_:credentials:date:expiresIn:)`` without the secret.
    public func preparePresigning(
        _ request: inout OSSSignableRequest, accessKeyId: String, securityToken: String?, date: Date, expiresIn: Int64
    ) throws(OSSSigningError) -> OSSPendingSignature {
        guard expiresIn > 0 else {
            throw OSSSigningError(.invalidExpiration, "a presigned URL must expire after a positive number of seconds")
        }
        let expires = Int64(date.timeIntervalSince1970.rounded(.down)) + expiresIn
        if let securityToken, !securityToken.isEmpty { request.query["security-token"] = securityToken }
        let stringToSign = Self.stringToSign(for: request, dateLine: String(expires))
        request.query["OSSAccessKeyId"] = accessKeyId
        request.query["Expires"] = String(expires)
        return OSSPendingSignature(
            version: .v1, stringToSign: stringToSign, canonicalRequest: nil, accessKeyId: accessKeyId,
            placement: .query(name: "Signature"))
    }
}

extension OSSSignerV4 {
    /// ``sign(_:credentials:date:)`` without the secret: `x-oss-date`, `x-oss-content-sha256` and the token are set,
    /// the signature is left to the caller.
    public func prepareSigning(
        _ request: inout OSSSignableRequest, accessKeyId: String, securityToken: String?, date: Date
    ) throws(OSSSigningError) -> OSSPendingSignature {
        guard !region.isEmpty else { throw OSSSigningError(.missingRegion, "V4 signing needs a region") }
        let dateTime = OSSDateFormat.iso8601Basic(date)
        request[header: "x-oss-date"] = dateTime
        if request[header: "x-oss-content-sha256"] == nil {
            request[header: "x-oss-content-sha256"] = Self.unsignedPayload
        }
        if let securityToken, !securityToken.isEmpty { request[header: "x-oss-security-token"] = securityToken }
        let additional = Self.presentAdditionalHeaders(additionalHeaders, in: request)
        let scope = Self.scope(day: String(dateTime.prefix(8)), region: region, product: product)
        let canonical = Self.canonicalRequest(
            for: request, additionalHeaders: additional,
            payloadHash: request[header: "x-oss-content-sha256"] ?? Self.unsignedPayload)
        var prefix = "\(Self.algorithm) Credential=\(accessKeyId)/\(scope)"
        if !additional.isEmpty { prefix += ",AdditionalHeaders=\(additional.joined(separator: ";"))" }
        return OSSPendingSignature(
            version: .v4, stringToSign: Self.stringToSign(canonicalRequest: canonical, dateTime: dateTime, scope: scope),
            canonicalRequest: canonical, accessKeyId: accessKeyId,
            placement: .authorizationHeader(prefix: prefix + ",Signature=", suffix: ""))
    }

    /// ``presign(_:credentials:date:expiresIn:)`` without the secret.
    public func preparePresigning(
        _ request: inout OSSSignableRequest, accessKeyId: String, securityToken: String?, date: Date, expiresIn: Int64
    ) throws(OSSSigningError) -> OSSPendingSignature {
        guard !region.isEmpty else { throw OSSSigningError(.missingRegion, "V4 signing needs a region") }
        guard expiresIn > 0, expiresIn <= Self.maximumPresignExpiry else {
            throw OSSSigningError(
                .invalidExpiration,
                "a V4 presigned URL must expire within 1 to \(Self.maximumPresignExpiry) seconds, not \(expiresIn)")
        }
        let dateTime = OSSDateFormat.iso8601Basic(date)
        let scope = Self.scope(day: String(dateTime.prefix(8)), region: region, product: product)
        let additional = Self.presentAdditionalHeaders(additionalHeaders, in: request)
        request.query["x-oss-signature-version"] = Self.algorithm
        request.query["x-oss-credential"] = "\(accessKeyId)/\(scope)"
        request.query["x-oss-date"] = dateTime
        request.query["x-oss-expires"] = String(expiresIn)
        if !additional.isEmpty { request.query["x-oss-additional-headers"] = additional.joined(separator: ";") }
        if let securityToken, !securityToken.isEmpty { request.query["x-oss-security-token"] = securityToken }
        let canonical = Self.canonicalRequest(for: request, additionalHeaders: additional, payloadHash: Self.unsignedPayload)
        return OSSPendingSignature(
            version: .v4, stringToSign: Self.stringToSign(canonicalRequest: canonical, dateTime: dateTime, scope: scope),
            canonicalRequest: canonical, accessKeyId: accessKeyId, placement: .query(name: "x-oss-signature"))
    }

    /// The signature of a pending V4 signature's string to sign with `secret` (the day, region and product read from
    /// its scope, the string to sign's third line).
    public static func signature(for pending: OSSPendingSignature, secret: String) -> String? {
        let lines = pending.stringToSign.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 4 else { return nil }
        let scope = lines[2].split(separator: "/")
        guard scope.count == 4 else { return nil }
        return signature(
            stringToSign: pending.stringToSign, secret: secret, day: String(scope[0]), region: String(scope[1]),
            product: String(scope[2]))
    }
}
