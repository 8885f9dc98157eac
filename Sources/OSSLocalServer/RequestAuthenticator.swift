import OSSSigning

import Foundation

/// Verifies V1/V4 header signatures and presigned URLs, STS tokens and request times.
struct RequestAuthenticator: Sendable {
    private struct Secret: Sendable {
        var secret: String
        var token: String?
        /// The configured user these keys belong to; `nil` for the owner's keys and STS credentials.
        var user: LocalOSSUser? = nil
    }

    private let secrets: [String: Secret]
    private let issuer: TemporaryCredentialIssuer
    private let region: String
    private let maxClockSkew: TimeInterval

    init(configuration: LocalOSSServerConfiguration, issuer: TemporaryCredentialIssuer = TemporaryCredentialIssuer()) {
        var secrets: [String: Secret] = [:]
        for sts in configuration.stsCredentials {
            secrets[sts.accessKeyId] = Secret(secret: sts.accessKeySecret, token: sts.securityToken)
        }
        for user in configuration.users {
            secrets[user.accessKeyId] = Secret(secret: user.accessKeySecret, token: nil, user: user)
        }
        secrets[configuration.accessKeyId] = Secret(secret: configuration.accessKeySecret, token: nil)
        self.secrets = secrets
        self.issuer = issuer
        self.region = configuration.region
        self.maxClockSkew = configuration.maxClockSkew
    }

    /// Verifies the request's signature and answers who signed it.
    func authenticate(_ context: RequestContext) throws(LocalOSSError) -> Caller {
        let request = OSSSignableRequest(
            method: context.method, bucket: context.bucket, key: context.key, query: context.query,
            headers: context.headers)
        if let authorization = context.header("authorization") {
            if authorization.hasPrefix(OSSSignerV4.algorithm + " ") {
                return caller(try verifyV4Header(authorization, request: request, context: context))
            } else if authorization.hasPrefix("OSS ") {
                return caller(try verifyV1Header(authorization, request: request, context: context))
            } else {
                throw .accessDenied("The authorization header is not a supported OSS signature.")
            }
        } else if context.query["x-oss-signature"] != nil {
            return caller(try verifyV4Presign(request: request, context: context))
        } else if context.query["Signature"] != nil {
            return caller(try verifyV1Presign(request: request, context: context))
        } else {
            throw .accessDenied("You have no right to access this object because of bucket acl.")
        }
    }

    private func caller(_ secret: Secret) -> Caller {
        secret.user.map(Caller.user) ?? .owner
    }

    // MARK: - V1

    private func verifyV1Header(_ authorization: String, request: OSSSignableRequest, context: RequestContext)
        throws(LocalOSSError) -> Secret
    {
        let credential = authorization.dropFirst(4)
        guard let colon = credential.lastIndex(of: ":") else {
            throw .invalidArgument("Authorization header is invalid.", name: "Authorization")
        }
        let accessKeyId = String(credential[..<colon]).trimmingWhitespace()
        let provided = String(credential[credential.index(after: colon)...]).trimmingWhitespace()
        let secret = try lookup(accessKeyId, context: context)
        guard let dateLine = context.header("x-oss-date") ?? context.header("date") else {
            throw .accessDenied("Missing Date header in the request.")
        }
        guard let requestDate = OSSDateFormat.parseRFC1123(dateLine) ?? OSSDateFormat.parseISO8601Basic(dateLine)
        else {
            throw .accessDenied("Invalid Date header: \(dateLine)")
        }
        try checkSkew(requestDate, context: context)
        let stringToSign = OSSSignerV1.stringToSign(for: request, dateLine: dateLine)
        let expected = OSSSignerV1.signature(stringToSign: stringToSign, secret: secret.secret)
        guard constantTimeEqual(expected, provided) else {
            throw signatureMismatch(accessKeyId: accessKeyId, stringToSign: stringToSign, canonicalRequest: nil)
        }
        return secret
    }

    private func verifyV1Presign(request: OSSSignableRequest, context: RequestContext) throws(LocalOSSError) -> Secret {
        guard let accessKeyId = context.query["OSSAccessKeyId"], let expiresText = context.query["Expires"],
            let provided = context.query["Signature"]
        else {
            throw .accessDenied("A presigned URL needs OSSAccessKeyId, Expires and Signature.")
        }
        let secret = try lookup(accessKeyId, context: context)
        guard let expires = Int64(expiresText) else {
            throw .accessDenied("Invalid Expires: \(expiresText)")
        }
        if Int64(context.now.timeIntervalSince1970) > expires {
            throw .accessDenied("Request has expired.", expires: expiresText, context: context)
        }
        let stringToSign = OSSSignerV1.stringToSign(for: request, dateLine: expiresText)
        let expected = OSSSignerV1.signature(stringToSign: stringToSign, secret: secret.secret)
        guard constantTimeEqual(expected, provided) else {
            throw signatureMismatch(accessKeyId: accessKeyId, stringToSign: stringToSign, canonicalRequest: nil)
        }
        return secret
    }

    // MARK: - V4

    private func verifyV4Header(_ authorization: String, request: OSSSignableRequest, context: RequestContext)
        throws(LocalOSSError) -> Secret
    {
        var fields: [String: String] = [:]
        for item in authorization.dropFirst(OSSSignerV4.algorithm.count + 1).split(separator: ",") {
            let pair = item.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            fields[String(pair[0]).trimmingWhitespace()] = String(pair[1]).trimmingWhitespace()
        }
        guard let credential = fields["Credential"], let provided = fields["Signature"] else {
            throw .invalidArgument("Authorization header is invalid.", name: "Authorization")
        }
        guard let dateTime = context.header("x-oss-date"), let requestDate = OSSDateFormat.parseISO8601Basic(dateTime)
        else {
            throw .accessDenied("A V4 request needs a valid x-oss-date header.")
        }
        try checkSkew(requestDate, context: context)
        return try verifyV4(
            credential: credential, additional: fields["AdditionalHeaders"], provided: provided, dateTime: dateTime,
            payloadHash: context.header("x-oss-content-sha256") ?? OSSSignerV4.unsignedPayload, request: request,
            context: context)
    }

    private func verifyV4Presign(request: OSSSignableRequest, context: RequestContext) throws(LocalOSSError) -> Secret {
        let q = context.query
        guard q["x-oss-signature-version"] == OSSSignerV4.algorithm else {
            throw .invalidArgument("x-oss-signature-version must be \(OSSSignerV4.algorithm).")
        }
        guard let credential = q["x-oss-credential"], let dateTime = q["x-oss-date"],
            let expiresText = q["x-oss-expires"], let provided = q["x-oss-signature"]
        else {
            throw .accessDenied("A V4 presigned URL needs x-oss-credential, x-oss-date, x-oss-expires and x-oss-signature.")
        }
        guard let date = OSSDateFormat.parseISO8601Basic(dateTime) else {
            throw .accessDenied("Invalid x-oss-date: \(dateTime)")
        }
        guard let expires = Int64(expiresText), expires >= 0, expires <= OSSSignerV4.maximumPresignExpiry else {
            throw .invalidArgument(
                "x-oss-expires must be between 0 and \(OSSSignerV4.maximumPresignExpiry) seconds.", name: "x-oss-expires",
                value: expiresText)
        }
        if context.now.timeIntervalSince1970 > date.timeIntervalSince1970 + Double(expires) {
            throw .accessDenied("Request has expired.", expires: nil, context: context)
        }
        if date.timeIntervalSince1970 - context.now.timeIntervalSince1970 > maxClockSkew {
            throw skewed(date, context: context)
        }
        return try verifyV4(
            credential: credential, additional: q["x-oss-additional-headers"], provided: provided, dateTime: dateTime,
            payloadHash: OSSSignerV4.unsignedPayload, request: request, context: context)
    }

    private func verifyV4(
        credential: String, additional: String?, provided: String, dateTime: String, payloadHash: String,
        request: OSSSignableRequest, context: RequestContext
    ) throws(LocalOSSError) -> Secret {
        let parts = credential.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 5, parts[4] == "aliyun_v4_request" else {
            throw .invalidArgument("The V4 credential is malformed.", name: "Credential")
        }
        let (accessKeyId, day, scopeRegion, product) = (parts[0], parts[1], parts[2], parts[3])
        let secret = try lookup(accessKeyId, context: context)
        guard day == String(dateTime.prefix(8)) else {
            throw LocalOSSError(403, "SignatureDoesNotMatch", "The credential date \(day) does not match x-oss-date.")
        }
        guard scopeRegion == region else {
            throw LocalOSSError(
                403, "SignatureDoesNotMatch",
                "The credential scope region '\(scopeRegion)' is wrong; this server expects '\(region)'.")
        }
        let additionalHeaders = (additional ?? "").split(separator: ";").map { String($0).trimmingWhitespace().lowercased() }
            .filter { !$0.isEmpty }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let canonical = OSSSignerV4.canonicalRequest(
            for: request, additionalHeaders: additionalHeaders, payloadHash: payloadHash)
        let scope = OSSSignerV4.scope(day: day, region: scopeRegion, product: product)
        let stringToSign = OSSSignerV4.stringToSign(canonicalRequest: canonical, dateTime: dateTime, scope: scope)
        let expected = OSSSignerV4.signature(
            stringToSign: stringToSign, secret: secret.secret, day: day, region: scopeRegion, product: product)
        guard constantTimeEqual(expected, provided.lowercased()) else {
            throw signatureMismatch(accessKeyId: accessKeyId, stringToSign: stringToSign, canonicalRequest: canonical)
        }
        return secret
    }

    // MARK: - Shared checks

    /// The secret of `accessKeyId` for a request presenting `securityToken` (a PostObject form's fields), with the
    /// same checks as a signed request: unknown key, missing or wrong token, expired temporary credentials.
    func secret(for accessKeyId: String, securityToken: String?, context: RequestContext) throws(LocalOSSError)
        -> String
    {
        var presented = context
        presented.headers["x-oss-security-token"] = securityToken
        return try lookup(accessKeyId, context: presented).secret
    }

    /// Who holds `accessKeyId` (a PostObject form's signer), for the access checks after its signature passed.
    func caller(of accessKeyId: String, securityToken: String?, context: RequestContext) throws(LocalOSSError) -> Caller {
        var presented = context
        presented.headers["x-oss-security-token"] = securityToken
        return caller(try lookup(accessKeyId, context: presented))
    }

    private func lookup(_ accessKeyId: String, context: RequestContext) throws(LocalOSSError) -> Secret {
        var expiration: Date?
        let found: Secret
        if let secret = secrets[accessKeyId] {
            found = secret
        } else if let issued = issuer.credential(for: accessKeyId) {
            found = Secret(secret: issued.accessKeySecret, token: issued.securityToken)
            expiration = issued.expiration
        } else {
            throw LocalOSSError(
                403, "InvalidAccessKeyId", "The OSS Access Key Id you provided does not exist in our records.",
                fields: [("OSSAccessKeyId", accessKeyId)])
        }
        let secret = found
        if let required = secret.token {
            let presented =
                context.header("x-oss-security-token") ?? context.header("security-token")
                ?? context.query["security-token"] ?? context.query["x-oss-security-token"]
            guard let presented else {
                throw LocalOSSError(403, "InvalidSecurityToken", "The request uses temporary credentials but carries no security token.")
            }
            guard constantTimeEqual(presented, required) else {
                throw LocalOSSError(403, "InvalidSecurityToken", "The security token you provided is invalid.")
            }
        }
        if let expiration, context.now >= expiration {
            throw LocalOSSError(403, "SecurityTokenExpired", "The security token you provided has expired.")
        }
        return secret
    }

    private func checkSkew(_ requestDate: Date, context: RequestContext) throws(LocalOSSError) {
        if abs(requestDate.timeIntervalSince(context.now)) > maxClockSkew {
            throw skewed(requestDate, context: context)
        }
    }

    private func skewed(_ requestDate: Date, context: RequestContext) -> LocalOSSError {
        LocalOSSError(
            403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.",
            fields: [
                ("RequestTime", OSSDateFormat.iso8601Milliseconds(requestDate)),
                ("ServerTime", OSSDateFormat.iso8601Milliseconds(context.now)),
                ("MaxAllowedSkewMilliseconds", String(Int(maxClockSkew * 1000))),
            ])
    }

    private func signatureMismatch(accessKeyId: String, stringToSign: String, canonicalRequest: String?)
        -> LocalOSSError
    {
        let hex = stringToSign.utf8.map { b in
            let s = String(b, radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined(separator: " ")
        var fields: [(String, String)] = [("OSSAccessKeyId", accessKeyId), ("StringToSign", stringToSign)]
        fields.append(("StringToSignBytes", hex))
        if let canonicalRequest { fields.append(("CanonicalRequest", canonicalRequest)) }
        return LocalOSSError(
            403, "SignatureDoesNotMatch",
            "The request signature we calculated does not match the signature you provided. Check your key and signing method.",
            fields: fields)
    }
}

/// Compares two strings in time independent of where they differ.
func constantTimeEqual(_ a: String, _ b: String) -> Bool {
    let x = Array(a.utf8)
    let y = Array(b.utf8)
    var diff = UInt8(x.count == y.count ? 0 : 1)
    for i in 0..<max(x.count, y.count) {
        let p = i < x.count ? x[i] : 0
        let q = i < y.count ? y[i] : 0
        diff |= p ^ q
    }
    return diff == 0
}

extension LocalOSSError {
    static func accessDenied(_ message: String, expires: String?, context: RequestContext) -> LocalOSSError {
        var fields: [(String, String)] = []
        if let expires { fields.append(("Expires", expires)) }
        fields.append(("ServerTime", OSSDateFormat.iso8601Milliseconds(context.now)))
        return LocalOSSError(403, "AccessDenied", message, fields: fields)
    }
}
