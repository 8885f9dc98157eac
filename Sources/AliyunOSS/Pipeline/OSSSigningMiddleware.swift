import Foundation
import Logging

/// Signs each attempt afresh (so a retried request gets a new date and, after a clock correction, the
/// server's time), with the configured signature version and the credential provider's current credentials.
/// Requests of operations that are not authenticated (``OSSOperation/isAuthenticationRequired``) pass unsigned.
struct OSSSigningMiddleware: OSSMiddleware {
    let credentialProvider: any OSSCredentialProvider
    let signatureVersion: OSSSignatureVersion
    let region: String?
    let clock: OSSClockSkew
    let logger: Logger

    func handle<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
        next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        guard context.isAuthenticationRequired else { return try await next(request, context) }
        var request = request
        try await sign(&request.prepared)
        return try await next(request, context)
    }

    func sign(_ request: inout OSSPreparedRequest) async throws {
        let date = await clock.now()
        if let custom = credentialProvider as? OSSCustomSignerCredentialProvider {
            try await signWithCustomSigner(&request, signer: custom, date: date)
            return
        }
        if let remote = credentialProvider as? OSSRemoteSignerCredentialProvider {
            try await signRemotely(&request.signable, signer: remote, date: date, presignExpiresIn: nil)
            traceSigning(request)
            return
        }
        let credentials: OSSCredentials
        do {
            // A provider backed by a refreshing one tells which fetch signed, so a rejection refreshes it once.
            let signing = try await OSSSigningCredentials.of(credentialProvider)
            if let source = signing.source {
                OSSCredentialRefreshContext.current?.recordSigning(provider: source.provider, epoch: source.epoch)
            }
            credentials = signing.credentials
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.signFailed, "the credential provider failed", underlying: $0)
            }
        }
        let signer = try makeSigner()
        do {
            try signer.sign(&request.signable, credentials: credentials, date: date)
        } catch {
            throw OSSClientError(.signFailed, "cannot sign the request: \(error)", underlying: error)
        }
        traceSigning(request)
    }

    func makeSigner() throws -> any OSSRequestSigner {
        switch signatureVersion {
        case .v1:
            return OSSSignerV1()
        case .v4:
            return try v4Signer()
        }
    }

    /// Prepares `request` with the remote signer's identity (header signing, or presigning when `presignExpiresIn`
    /// is set) and puts in the signature the remote signer returns for it. A rejection of the identity by OSS
    /// refreshes it once, as for any refreshing provider.
    func signRemotely(
        _ request: inout OSSSignableRequest, signer: OSSRemoteSignerCredentialProvider, date: Date,
        presignExpiresIn: Int64?
    ) async throws {
        let identity: OSSSigningCredentials
        do {
            identity = try await signer.signingCredentials()
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.signFailed, "the remote signer's identity could not be fetched", underlying: $0)
            }
        }
        if let source = identity.source {
            OSSCredentialRefreshContext.current?.recordSigning(provider: source.provider, epoch: source.epoch)
        }
        let id = identity.credentials.accessKeyId
        let token = identity.credentials.securityToken
        let pending: OSSPendingSignature
        do {
            switch (signatureVersion, presignExpiresIn) {
            case (.v1, nil):
                pending = OSSSignerV1().prepareSigning(&request, accessKeyId: id, securityToken: token, date: date)
            case (.v1, let seconds?):
                pending = try OSSSignerV1().preparePresigning(
                    &request, accessKeyId: id, securityToken: token, date: date, expiresIn: seconds)
            case (.v4, nil):
                pending = try v4Signer().prepareSigning(&request, accessKeyId: id, securityToken: token, date: date)
            case (.v4, let seconds?):
                pending = try v4Signer().preparePresigning(
                    &request, accessKeyId: id, securityToken: token, date: date, expiresIn: seconds)
            }
        } catch let error as OSSSigningError {
            if error.code == .invalidExpiration { throw OSSClientError.invalidArgument(error.message) }
            throw OSSClientError(.signFailed, "cannot sign the request: \(error)", underlying: error)
        }
        pending.apply(try await signer.signature(for: pending), to: &request)
    }

    private func v4Signer() throws -> OSSSignerV4 {
        guard let region, !region.isEmpty else {
            throw OSSClientError(.signFailed, "signature V4 needs a region in the client configuration")
        }
        return OSSSignerV4(region: region)
    }

    private func signWithCustomSigner(
        _ request: inout OSSPreparedRequest, signer: OSSCustomSignerCredentialProvider, date: Date
    ) async throws {
        guard signatureVersion == .v1 else {
            throw OSSClientError(.signFailed, "a custom signer can only produce signature V1")
        }
        if let token = signer.securityToken, !token.isEmpty {
            request.signable[header: "x-oss-security-token"] = token
        }
        request.signable[header: "date"] = OSSDateFormat.rfc1123(date)
        let dateLine = request.signable[header: "x-oss-date"] ?? request.signable[header: "date"] ?? ""
        let stringToSign = OSSSignerV1.stringToSign(for: request.signable, dateLine: dateLine)
        if logger.logLevel <= .trace {
            logger.trace("V1 string to sign", metadata: ["stringToSign": "\(Self.redacted(stringToSign, request))"])
        }
        request.signable[header: "authorization"] = try await signer.authorization(for: stringToSign)
    }

    /// Logs what was signed, at `.trace` only; never the secret, token or signature.
    private func traceSigning(_ request: OSSPreparedRequest) {
        guard logger.logLevel <= .trace else { return }
        switch signatureVersion {
        case .v1:
            let dateLine = request.signable[header: "x-oss-date"] ?? request.signable[header: "date"] ?? ""
            let stringToSign = OSSSignerV1.stringToSign(for: request.signable, dateLine: dateLine)
            logger.trace("V1 string to sign", metadata: ["stringToSign": "\(Self.redacted(stringToSign, request))"])
        case .v4:
            var additional: [String] = []
            if let auth = request.signable[header: "authorization"], let r = auth.range(of: "AdditionalHeaders=") {
                additional = auth[r.upperBound...].prefix { $0 != "," }.split(separator: ";").map(String.init)
            }
            let canonical = OSSSignerV4.canonicalRequest(
                for: request.signable, additionalHeaders: additional,
                payloadHash: request.signable[header: "x-oss-content-sha256"] ?? OSSSignerV4.unsignedPayload)
            logger.trace("V4 canonical request", metadata: ["canonicalRequest": "\(Self.redacted(canonical, request))"])
        }
    }

    /// The text with the STS token replaced: it appears in signed headers and must never be logged.
    static func redacted(_ text: String, _ request: OSSPreparedRequest) -> String {
        guard let token = request.signable[header: "x-oss-security-token"], !token.isEmpty else { return text }
        return text.replacingOccurrences(of: token, with: "<redacted>")
    }
}
