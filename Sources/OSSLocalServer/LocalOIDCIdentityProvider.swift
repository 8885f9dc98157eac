import Crypto
import _CryptoExtras

import Foundation

/// A stand-in for the OpenID Connect identity provider of a Kubernetes cluster (ACK's RRSA issuer): an RSA key pair
/// that mints RS256-signed ID tokens and publishes its public key as a JWKS, so that ``LocalSTSService`` can check
/// `AssumeRoleWithOIDC` tokens as STS checks them (signature against the provider's JWKS, `iss`, `aud`, `exp`).
///
/// ```swift
/// let idp = try LocalOIDCIdentityProvider(issuer: "https://oidc.local/cluster", audience: "sts.aliyuncs.com")
/// let token = try idp.token(subject: "system:serviceaccount:default:app", lifetime: .seconds(3600))
/// ```
public struct LocalOIDCIdentityProvider: Sendable {
    /// The `iss` of the tokens.
    public let issuer: String
    /// The `aud` of the tokens (the client id registered with the OIDC provider in RAM).
    public let audience: String
    /// The key's id (`kid`).
    public let keyID: String
    private let key: _RSA.Signing.PrivateKey

    /// Generates a 2048-bit key pair.
    public init(issuer: String, audience: String, keyID: String = "local-oidc-1") throws {
        self.issuer = issuer
        self.audience = audience
        self.keyID = keyID
        key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
    }

    /// The public key as a JSON Web Key Set (`{"keys": [{"kty": "RSA", "kid", "alg": "RS256", "use": "sig", "n",
    /// "e"}]}`), what the provider publishes and what STS is configured with.
    public var jwks: Data {
        get throws {
            let primitives = try key.publicKey.getKeyPrimitives()
            let entry: [String: String] = [
                "kty": "RSA", "kid": keyID, "alg": "RS256", "use": "sig",
                "n": JSONWebToken.base64URL(primitives.modulus), "e": JSONWebToken.base64URL(primitives.publicExponent),
            ]
            return try JSONSerialization.data(withJSONObject: ["keys": [entry]], options: [.sortedKeys])
        }
    }

    /// A signed ID token for `subject`, valid for `lifetime` from `now` (negative: already expired), with this
    /// provider's issuer and audience unless overridden.
    public func token(
        subject: String, lifetime: Duration = .seconds(3600), now: Date = Date(), issuer: String? = nil,
        audience: String? = nil
    ) throws -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims: [String: Any] = [
            "iss": issuer ?? self.issuer, "aud": audience ?? self.audience, "sub": subject,
            "iat": issuedAt, "exp": issuedAt + Int(lifetime.components.seconds),
        ]
        let header = try JSONSerialization.data(
            withJSONObject: ["alg": "RS256", "typ": "JWT", "kid": keyID], options: [.sortedKeys])
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        let signingInput = JSONWebToken.base64URL(header) + "." + JSONWebToken.base64URL(payload)
        let signature = try key.signature(for: Data(signingInput.utf8), padding: .insecurePKCS1v1_5)
        return signingInput + "." + JSONWebToken.base64URL(signature.rawRepresentation)
    }
}

/// A compact JWS as STS reads an OIDC token: three base64url parts, an RS256 header, claims.
struct JSONWebToken {
    /// Why a token is refused, with STS's code and message.
    struct Refusal: Error {
        var code: String
        var message: String
    }

    var header: [String: Any]
    var claims: [String: Any]
    var signingInput: Data
    var signature: Data

    init(_ text: String) throws {
        let invalid = "AuthenticationFail.OIDCToken.Invalid"
        guard !text.isEmpty else { throw Refusal(code: invalid, message: "The OIDCToken can not empty.") }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw Refusal(code: invalid, message: "The number of Jwt field should be divided into 3 parts with '.' .")
        }
        guard let headerData = Self.decodeBase64URL(parts[0]), let claimsData = Self.decodeBase64URL(parts[1]),
            let signature = Self.decodeBase64URL(parts[2])
        else { throw Refusal(code: invalid, message: "Cannot decode base64 encoded response(format invalided).") }
        guard let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any]
        else { throw Refusal(code: invalid, message: "The Jwt content is invalid that cannot be recognized.") }
        let algorithm = header["alg"] as? String ?? ""
        guard algorithm == "RS256" else {
            throw Refusal(code: invalid, message: "The algorithm \(algorithm) that be specified in Jwt header is unknown.")
        }
        self.header = header
        self.claims = claims
        self.signingInput = Data((parts[0] + "." + parts[1]).utf8)
        self.signature = signature
    }

    /// Checks the signature against the JWKS's RSA key with the header's `kid` (any RS256 key when there is none).
    func verifySignature(jwks: Data) throws {
        let failure = Refusal(
            code: "AuthenticationFail.OIDCToken.InvalidSignature", message: "OIDC token validate failed: invalid signature.")
        guard let set = (try? JSONSerialization.jsonObject(with: jwks)) as? [String: Any],
            let keys = set["keys"] as? [[String: Any]]
        else { throw failure }
        let kid = header["kid"] as? String
        for entry in keys where entry["kty"] as? String == "RSA" && (kid == nil || entry["kid"] as? String == kid) {
            guard let n = (entry["n"] as? String).flatMap({ Self.decodeBase64URL($0[...]) }),
                let e = (entry["e"] as? String).flatMap({ Self.decodeBase64URL($0[...]) }),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { continue }
            let signature = _RSA.Signing.RSASignature(rawRepresentation: self.signature)
            if key.isValidSignature(signature, for: signingInput, padding: .insecurePKCS1v1_5) { return }
        }
        throw failure
    }

    /// `aud` as a list (a string or an array of strings).
    var audiences: [String] {
        if let one = claims["aud"] as? String { return [one] }
        return claims["aud"] as? [String] ?? []
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
