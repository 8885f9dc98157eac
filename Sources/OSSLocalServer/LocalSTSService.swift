import NIOConcurrencyHelpers
import OSSSigning

import Foundation

/// A stand-in, on loopback, for Alibaba Cloud STS (`sts.aliyuncs.com`, API version 2015-04-01), for testing the
/// credential providers that assume RAM roles where no account exists. It answers the two RPC actions they call, as
/// GET (parameters in the query) or POST (parameters in an `application/x-www-form-urlencoded` body):
///
/// - `AssumeRole` (`RoleArn`, `RoleSessionName`, optional `Policy`, `DurationSeconds`, `ExternalId`), signed by the
///   caller with the RPC signature: `AccessKeyId`, `SignatureMethod=HMAC-SHA1`, `SignatureVersion=1.0`,
///   `SignatureNonce` (single use), `Timestamp` (within 15 minutes), and `Signature`, the base64 HMAC-SHA1 with
///   `<secret>&` of `METHOD&%2F&<percent-encoded canonical query>` (every parameter but `Signature`, sorted, each
///   name and value percent-encoded per RFC 3986). The caller is a configured access key, or temporary credentials
///   the local OSS server issued (then `SecurityToken` must be theirs and live: role chaining);
/// - `AssumeRoleWithOIDC` (`RoleArn`, `OIDCProviderArn`, `OIDCToken`, `RoleSessionName`, optional `Policy`,
///   `DurationSeconds`), unsigned: the token must be an RS256 JWT signed by a key of the provider's JWKS, with the
///   provider's issuer, one of its client ids as audience, and not expired.
///
/// Success is STS's JSON (`RequestId`, `AssumedRoleUser`, `Credentials` with `AccessKeyId`, `AccessKeySecret`,
/// `SecurityToken`, `Expiration`; `OIDCTokenInfo` for OIDC); a refusal is STS's error JSON (`RequestId`, `HostId`,
/// `Code`, `Message`) with its HTTP status and code (`SignatureDoesNotMatch`, `InvalidAccessKeyId.NotFound`,
/// `SignatureNonceUsed`, `InvalidTimeStamp.Expired`, `MissingRoleArn`, `InvalidParameter.DurationSeconds`,
/// `InvalidParameter.RoleSessionName`, `InvalidParameter.PolicyGrammar`, `EntityNotExist.Role`,
/// `AuthenticationFail.NoPermission`, `AuthenticationFail.OIDCToken.*`, `InvalidAction.NotFound`, ...).
///
/// The credentials come from `issue` (typically ``LocalOSSServer/issueTemporaryCredentials(lifetime:)``, given the
/// duration asked for), so the local OSS server accepts them until they expire.
public final class LocalSTSService: Sendable {
    /// An OIDC identity provider registered in RAM.
    public struct OIDCProvider: Sendable {
        /// `acs:ram::<account>:oidc-provider/<name>`.
        public var arn: String
        /// The tokens' `iss`.
        public var issuer: String
        /// The accepted `aud` values.
        public var clientIDs: [String]
        /// The provider's public keys (a JWKS document).
        public var jwks: Data

        public init(arn: String, issuer: String, clientIDs: [String], jwks: Data) {
            self.arn = arn
            self.issuer = issuer
            self.clientIDs = clientIDs
            self.jwks = jwks
        }

        /// The provider of `identityProvider`'s tokens.
        public init(arn: String, identityProvider: LocalOIDCIdentityProvider) throws {
            self.init(
                arn: arn, issuer: identityProvider.issuer, clientIDs: [identityProvider.audience],
                jwks: try identityProvider.jwks)
        }
    }

    /// The account the service answers for.
    public struct Configuration: Sendable {
        /// The roles that can be assumed (their ARNs).
        public var roleARNs: Set<String>
        /// The access keys allowed to call `AssumeRole` (id to secret).
        public var accessKeys: [String: String]
        /// The OIDC providers `AssumeRoleWithOIDC` accepts.
        public var oidcProviders: [OIDCProvider]
        /// The roles' maximum session duration in seconds (3600 by default, 900...43200).
        public var maxSessionDuration: Int

        public init(
            roleARNs: Set<String>, accessKeys: [String: String] = [:], oidcProviders: [OIDCProvider] = [],
            maxSessionDuration: Int = 3600
        ) {
            self.roleARNs = roleARNs
            self.accessKeys = accessKeys
            self.oidcProviders = oidcProviders
            self.maxSessionDuration = maxSessionDuration
        }
    }

    /// What the service was asked, for tests; never a secret, signature or token.
    public struct Call: Sendable, Hashable {
        public var action: String
        public var httpMethod: String
        /// The parameters, without `Signature`, `SecurityToken` and `OIDCToken`.
        public var parameters: [String: String]
        /// The error code answered; `nil`: credentials were issued.
        public var errorCode: String?
    }

    private struct State {
        var nonces: Set<String> = []
        var calls: [Call] = []
    }

    /// `http://127.0.0.1:<port>`: the providers' STS endpoint.
    public var url: URL { server.url }
    private let server: LocalHTTPServer
    private let state: NIOLockedValueBox<State>

    private init(server: LocalHTTPServer, state: NIOLockedValueBox<State>) {
        self.server = server
        self.state = state
    }

    /// Starts the stand-in.
    /// - Parameters:
    ///   - issue: issues credentials for the duration asked (`nil` answers 500 `InternalError`).
    ///   - temporaryCredential: the local OSS server's temporary credentials by access key id, for `AssumeRole` called
    ///     with them (``LocalOSSServer/temporaryCredential(accessKeyId:)``).
    public static func start(
        _ configuration: Configuration,
        issue: @escaping @Sendable (Duration) async -> LocalOSSTemporaryCredential?,
        temporaryCredential: @escaping @Sendable (String) -> LocalOSSTemporaryCredential? = { _ in nil }
    ) async throws -> LocalSTSService {
        let state = NIOLockedValueBox(State())
        let service = Handler(
            configuration: configuration, state: state, issue: issue, temporaryCredential: temporaryCredential)
        let server = try await LocalHTTPServer.start { request in await service.answer(request) }
        return LocalSTSService(server: server, state: state)
    }

    /// Every call so far, oldest first.
    public var calls: [Call] { state.withLockedValue { $0.calls } }

    public func shutdown() async throws {
        try await server.shutdown()
    }

    private struct Handler: Sendable {
        let configuration: Configuration
        let state: NIOLockedValueBox<State>
        let issue: @Sendable (Duration) async -> LocalOSSTemporaryCredential?
        let temporaryCredential: @Sendable (String) -> LocalOSSTemporaryCredential?

        struct Refusal: Error {
            var status: Int
            var code: String
            var message: String
        }

        func answer(_ request: LocalHTTPServer.Request) async -> LocalHTTPServer.Response {
            var parameters = Self.formDecode(request.uri.split(separator: "?", maxSplits: 1).dropFirst().first ?? "")
            if request.method == "POST" {
                parameters.merge(Self.formDecode(Substring(decoding: request.body, as: UTF8.self))) { _, body in body }
            }
            let action = parameters["Action"] ?? ""
            var recorded = parameters
            for secret in ["Signature", "SecurityToken", "OIDCToken"] { recorded[secret] = nil }
            do {
                guard request.method == "GET" || request.method == "POST" else {
                    throw Refusal(status: 405, code: "UnsupportedHTTPMethod", message: "This http method is not supported.")
                }
                let body: [String: Any]
                switch action {
                case "AssumeRole":
                    try verifySignature(parameters, method: request.method)
                    body = try await assumeRole(parameters, oidc: nil)
                case "AssumeRoleWithOIDC":
                    let info = try verifyOIDC(parameters)
                    body = try await assumeRole(parameters, oidc: info)
                case "":
                    throw Refusal(status: 400, code: "MissingAction", message: "Action is mandatory for this request.")
                default:
                    throw Refusal(
                        status: 404, code: "InvalidAction.NotFound",
                        message: "Specified api is not found, please check your url and method.")
                }
                record(Call(action: action, httpMethod: request.method, parameters: recorded, errorCode: nil))
                return Self.json(200, body)
            } catch let refusal as Refusal {
                record(Call(action: action, httpMethod: request.method, parameters: recorded, errorCode: refusal.code))
                return Self.json(
                    refusal.status,
                    [
                        "RequestId": UUID().uuidString, "HostId": "sts.aliyuncs.com", "Code": refusal.code,
                        "Message": refusal.message,
                    ])
            } catch {
                return Self.json(500, ["RequestId": UUID().uuidString, "Code": "InternalError", "Message": "\(error)"])
            }
        }

        private func record(_ call: Call) {
            state.withLockedValue { $0.calls.append(call) }
        }

        /// The RPC signature of `AssumeRole` and the caller behind it.
        private func verifySignature(_ parameters: [String: String], method: String) throws {
            func required(_ name: String) throws -> String {
                guard let value = parameters[name], !value.isEmpty else {
                    throw Refusal(status: 400, code: "Missing\(name)", message: "\(name) is mandatory for this action.")
                }
                return value
            }
            let signature = try required("Signature")
            let accessKeyId = try required("AccessKeyId")
            let nonce = try required("SignatureNonce")
            let timestamp = try required("Timestamp")
            guard try required("SignatureMethod") == "HMAC-SHA1" else {
                throw Refusal(
                    status: 400, code: "InvalidSignatureMethod", message: "Specified signature method is not supported.")
            }
            guard parameters["SignatureVersion"].map({ $0 == "1.0" }) ?? true else {
                throw Refusal(
                    status: 400, code: "InvalidSignatureVersion", message: "Specified signature version is not supported.")
            }
            guard let date = Self.parseTimestamp(timestamp) else {
                throw Refusal(
                    status: 400, code: "InvalidTimeStamp.Format", message: "Specified time stamp or date value is not well formatted.")
            }
            guard abs(date.timeIntervalSinceNow) <= 900 else {
                throw Refusal(
                    status: 400, code: "InvalidTimeStamp.Expired",
                    message: "Specified time stamp or date value is expired.")
            }
            let secret: String
            if let key = configuration.accessKeys[accessKeyId] {
                secret = key
            } else if let temporary = temporaryCredential(accessKeyId) {
                guard let token = parameters["SecurityToken"], !token.isEmpty else {
                    throw Refusal(
                        status: 400, code: "MissingSecurityToken", message: "SecurityToken is mandatory for this action.")
                }
                guard token == temporary.securityToken else {
                    throw Refusal(
                        status: 400, code: "InvalidSecurityToken.Mismatch",
                        message: "Specified SecurityToken is mismatch with the AccessKey.")
                }
                guard temporary.expiration > Date() else {
                    throw Refusal(
                        status: 400, code: "InvalidSecurityToken.Expired", message: "Specified SecurityToken is expired.")
                }
                secret = temporary.accessKeySecret
            } else {
                throw Refusal(status: 404, code: "InvalidAccessKeyId.NotFound", message: "Specified access key is not found.")
            }
            let expected = OSSRPCSignature.signature(parameters, method: method, secret: secret)
            guard expected == signature else {
                throw Refusal(
                    status: 400, code: "SignatureDoesNotMatch",
                    message: "Specified signature is not matched with our calculation.")
            }
            let fresh = state.withLockedValue { $0.nonces.insert(nonce).inserted }
            guard fresh else {
                throw Refusal(status: 400, code: "SignatureNonceUsed", message: "Specified signature nonce was used already.")
            }
        }

        /// The verified token's claims for `OIDCTokenInfo`.
        private func verifyOIDC(_ parameters: [String: String]) throws -> [String: Any] {
            guard let providerArn = parameters["OIDCProviderArn"], !providerArn.isEmpty else {
                throw Refusal(
                    status: 400, code: "MissingOIDCProviderArn", message: "OIDCProviderArn is mandatory for this action.")
            }
            guard let provider = configuration.oidcProviders.first(where: { $0.arn == providerArn }) else {
                throw Refusal(status: 401, code: "AuthenticationFail.NoPermission", message: "No such OIDC Provider registered.")
            }
            let token: JSONWebToken
            do {
                token = try JSONWebToken(parameters["OIDCToken"] ?? "")
                try token.verifySignature(jwks: provider.jwks)
            } catch let refusal as JSONWebToken.Refusal {
                throw Refusal(status: 401, code: refusal.code, message: refusal.message)
            }
            guard token.claims["iss"] as? String == provider.issuer else {
                throw Refusal(
                    status: 401, code: "AuthenticationFail.OIDCToken.Invalid",
                    message: "The issuer of the OIDC token does not match the OIDC provider.")
            }
            guard token.audiences.contains(where: provider.clientIDs.contains) else {
                throw Refusal(status: 401, code: "AuthenticationFail.OIDCToken.AudienceNotMatch", message: "Invalid audience.")
            }
            guard let expiry = (token.claims["exp"] as? NSNumber)?.doubleValue, expiry > Date().timeIntervalSince1970
            else {
                throw Refusal(
                    status: 401, code: "AuthenticationFail.OIDCToken.Expired", message: "This JsonWebToken is expired.")
            }
            return [
                "Subject": token.claims["sub"] as? String ?? "", "Issuer": provider.issuer,
                "ClientIds": token.audiences.joined(separator: ","),
                "ExpirationTime": Self.iso8601(Date(timeIntervalSince1970: expiry)),
            ]
        }

        private func assumeRole(_ parameters: [String: String], oidc: [String: Any]?) async throws -> [String: Any] {
            guard let roleArn = parameters["RoleArn"], !roleArn.isEmpty else {
                throw Refusal(status: 400, code: "MissingRoleArn", message: "RoleArn is mandatory for this action.")
            }
            guard let session = parameters["RoleSessionName"], !session.isEmpty else {
                throw Refusal(
                    status: 400, code: "MissingRoleSessionName", message: "RoleSessionName is mandatory for this action.")
            }
            let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.@-_")
            guard (2...64).contains(session.count), session.allSatisfy(allowed.contains) else {
                throw Refusal(
                    status: 400, code: "InvalidParameter.RoleSessionName",
                    message: "The parameter RoleSessionName is wrongly formed.")
            }
            let duration = parameters["DurationSeconds"].map { Int($0) } ?? 3600
            guard let duration, (900...configuration.maxSessionDuration).contains(duration) else {
                throw Refusal(
                    status: 400, code: "InvalidParameter.DurationSeconds",
                    message: "The Min/Max value of DurationSeconds is 15min/\(configuration.maxSessionDuration / 60)min.")
            }
            if let policy = parameters["Policy"], !policy.isEmpty {
                guard (try? JSONSerialization.jsonObject(with: Data(policy.utf8))) is [String: Any] else {
                    throw Refusal(
                        status: 400, code: "InvalidParameter.PolicyGrammar",
                        message: "The parameter Policy has not passed grammar check.")
                }
            }
            guard configuration.roleARNs.contains(roleArn) else {
                throw Refusal(status: 404, code: "EntityNotExist.Role", message: "The role not exists: \(roleArn).")
            }
            guard let credential = await issue(.seconds(duration)) else {
                throw Refusal(status: 500, code: "InternalError", message: "The request processing has failed due to some unknown error.")
            }
            var body: [String: Any] = [
                "RequestId": UUID().uuidString,
                "AssumedRoleUser": ["Arn": "\(roleArn)/\(session)", "AssumedRoleId": "300800000000000000:\(session)"],
                "Credentials": [
                    "AccessKeyId": credential.accessKeyId, "AccessKeySecret": credential.accessKeySecret,
                    "SecurityToken": credential.securityToken, "Expiration": Self.iso8601(credential.expiration),
                ],
            ]
            if let oidc { body["OIDCTokenInfo"] = oidc }
            return body
        }

        /// `application/x-www-form-urlencoded` (`+` is a space).
        static func formDecode(_ text: Substring) -> [String: String] {
            var result: [String: String] = [:]
            for pair in text.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                func decode(_ part: Substring) -> String {
                    String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(part)
                }
                result[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
            }
            return result
        }

        static func parseTimestamp(_ text: String) -> Date? {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.date(from: text)
        }

        static func iso8601(_ date: Date) -> String {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime]
            return formatter.string(from: date)
        }

        static func json(_ status: Int, _ body: [String: Any]) -> LocalHTTPServer.Response {
            let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])) ?? Data()
            return .init(status: status, contentType: "application/json;charset=utf-8", body: data)
        }
    }
}
