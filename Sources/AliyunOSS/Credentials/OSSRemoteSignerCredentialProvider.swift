import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Who a remote signer signs as: the access key id (and STS token) of the credentials it holds, never the secret.
public struct OSSRemoteSigningIdentity: Codable, Sendable, Hashable, CustomStringConvertible {
    public var accessKeyId: String
    /// Sent with every request (and signed) when the signer holds STS credentials.
    public var securityToken: String?
    /// When the identity stops working (`nil`: unknown; it is then fetched again only after OSS rejects it).
    public var expiration: Date?

    public init(accessKeyId: String, securityToken: String? = nil, expiration: Date? = nil) {
        self.accessKeyId = accessKeyId
        self.securityToken = securityToken
        self.expiration = expiration
    }

    public var description: String {
        "OSSRemoteSigningIdentity(accessKeyId: \(accessKeyId), expiration: \(expiration.map { "\($0)" } ?? "none"))"
    }
}

/// What a device asks its server to sign: the signature version, the string to sign, and for V4 the canonical
/// request it hashes (the server checks the request it describes before signing: ``OSSRemoteSigningAuthority``).
public struct OSSRemoteSigningRequest: Codable, Sendable, Hashable {
    /// `v1` or `v4`.
    public var signatureVersion: String
    public var stringToSign: String
    /// V4 only.
    public var canonicalRequest: String?

    public init(signatureVersion: String, stringToSign: String, canonicalRequest: String?) {
        self.signatureVersion = signatureVersion
        self.stringToSign = stringToSign
        self.canonicalRequest = canonicalRequest
    }

    init(_ pending: OSSPendingSignature) {
        self.init(
            signatureVersion: pending.version.rawValue, stringToSign: pending.stringToSign,
            canonicalRequest: pending.canonicalRequest)
    }
}

/// Signs every request, presigned URL and transfer with a signature made by a server of yours, with V1 or V4: the
/// app holds no secret. The device builds the request with the server's identity (access key id and STS token),
/// sends the server what must be signed (``OSSRemoteSigningRequest``: the string to sign, and for V4 the canonical
/// request it hashes) and puts the returned signature in. On the server, ``OSSRemoteSigningAuthority`` checks the
/// request against its policy (bucket, key prefix, methods, expiry) before it signs.
///
/// The identity is cached until its expiration (``refreshAhead`` before) and fetched again after OSS rejects it
/// (an expired token), the request then re-signed once. Works with every operation, presigned URLs, resumable,
/// background and directory transfers.
///
/// ```swift
/// // The app's server answers GET <url> with the identity JSON and POST <url> (an OSSRemoteSigningRequest) with
/// // {"signature": "..."}; see OSSRemoteSigningAuthority.respond(method:body:).
/// let provider = OSSRemoteSignerCredentialProvider(url: URL(string: "https://app.example.com/oss-sign")!,
///                                                  headers: ["Authorization": "Bearer \(session)"])
/// var configuration = OSSClientConfiguration(region: "cn-hangzhou")
/// configuration.signatureVersion = .v4
/// let client = try OSSClient(endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: provider,
///                            configuration: configuration)
/// ```
public final class OSSRemoteSignerCredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider {
    public typealias Identity = @Sendable () async throws -> OSSRemoteSigningIdentity
    /// Returns the signature of the request's string to sign (V1: base64; V4: lower-case hex).
    public typealias Sign = @Sendable (OSSRemoteSigningRequest) async throws -> String

    let refreshing: OSSRefreshingCredentialProvider
    private let sign: Sign

    /// - Parameters:
    ///   - refreshAhead: how long before the identity's expiration it is fetched again (default 5 minutes).
    ///   - identity: the server's identity.
    ///   - sign: the server's signature.
    public init(refreshAhead: Duration = .seconds(300), identity: @escaping Identity, sign: @escaping Sign) {
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) {
            let answer: OSSRemoteSigningIdentity
            do {
                answer = try await identity()
            } catch {
                throw OSSClientError.passing(error) {
                    OSSClientError(.signFailed, "the remote signer's identity could not be fetched", underlying: $0)
                }
            }
            guard !answer.accessKeyId.isEmpty else {
                throw OSSClientError(.signFailed, "the remote signer's identity has no access key id")
            }
            // No secret: the signing layer asks the remote signer instead of signing.
            return OSSFederationToken(
                accessKeyId: answer.accessKeyId, accessKeySecret: "", securityToken: answer.securityToken,
                expiration: answer.expiration)
        }
        self.sign = sign
    }

    /// A server that answers `GET url` with ``OSSRemoteSigningIdentity`` JSON and `POST url` (an
    /// ``OSSRemoteSigningRequest`` as JSON) with `{"signature": "..."}`, as ``OSSRemoteSigningAuthority/respond(method:body:)``
    /// does. `headers` go with both (the app's own session).
    public convenience init(
        url: URL, headers: [String: String] = [:], timeout: Duration = .seconds(10), refreshAhead: Duration = .seconds(300)
    ) {
        let seconds = timeout.timeInterval
        let service = "the remote signer \(OSSURICredentialProvider.redacted(url))"
        self.init(
            refreshAhead: refreshAhead,
            identity: {
                let reply = try await OSSCredentialHTTP.send(
                    "GET", url: url, headers: headers, timeout: seconds, service: service)
                guard reply.status == 200 else { throw OSSClientError(.signFailed, "\(service) answered HTTP \(reply.status)") }
                do {
                    return try OSSRemoteSigningAuthority.decoder.decode(OSSRemoteSigningIdentity.self, from: reply.body)
                } catch {
                    throw OSSClientError(.signFailed, "\(service) answered no identity JSON")
                }
            },
            sign: { request in
                let body = try OSSRemoteSigningAuthority.encoder.encode(request)
                let reply = try await OSSCredentialHTTP.send(
                    "POST", url: url, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own },
                    body: body, timeout: seconds, service: service)
                guard reply.status == 200,
                    let answer = try? JSONDecoder().decode([String: String].self, from: reply.body),
                    let signature = answer["signature"], !signature.isEmpty
                else {
                    let reason = (try? JSONDecoder().decode([String: String].self, from: reply.body))?["error"]
                    throw OSSClientError(
                        .signFailed, "\(service) refused to sign (HTTP \(reply.status)\(reason.map { ": \($0)" } ?? ""))")
                }
                return signature
            })
    }

    /// A remote signer has no secret to hand out.
    public func credentials() async throws -> OSSCredentials {
        throw OSSClientError(.signFailed, "a remote signer provides signatures, not credentials")
    }

    /// Forgets the cached identity; the next request fetches it again.
    public func invalidate() async {
        await refreshing.invalidate()
    }

    /// The server's signature of `pending`.
    func signature(for pending: OSSPendingSignature) async throws -> String {
        do {
            let signature = try await sign(OSSRemoteSigningRequest(pending))
            guard !signature.isEmpty else { throw OSSClientError(.signFailed, "the remote signer returned no signature") }
            return signature
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.signFailed, "the remote signer failed", underlying: $0)
            }
        }
    }
}
