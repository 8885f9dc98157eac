import Foundation

/// The temporary credentials of the RAM role attached to the ECS (or ECI) instance the app runs on, from the
/// instance's metadata service, as the Alibaba Cloud Credentials libraries get them:
///
/// 1. a session token first (IMDSv2: `PUT /latest/api/token` with `X-aliyun-ecs-metadata-token-ttl-seconds`), sent
///    with every metadata request; when the service gives none, the requests go without it (IMDSv1) unless that is
///    disabled (``disableIMDSv1``, or `ALIBABA_CLOUD_IMDSV1_DISABLED=true`), which makes the token's failure the
///    provider's error;
/// 2. the role's name: given, or `ALIBABA_CLOUD_ECS_METADATA`, or the one the service lists
///    (`GET /latest/meta-data/ram/security-credentials/`);
/// 3. its credentials (`GET /latest/meta-data/ram/security-credentials/<role>`: `Code` `Success`, `AccessKeyId`,
///    `AccessKeySecret`, `SecurityToken`, `Expiration`).
///
/// The credentials are cached and fetched again ``refreshAhead`` before they expire or after OSS refuses them;
/// concurrent requests share one fetch (``OSSRefreshingCredentialProvider``). Every metadata request times out
/// (1 s by default, as the libraries): off an instance the provider fails fast instead of hanging.
///
/// ```swift
/// let provider = try OSSECSRAMRoleCredentialProvider()
/// let client = try OSSClient(endpoint: "https://oss-cn-hangzhou-internal.aliyuncs.com", credentialProvider: provider)
/// ```
public final class OSSECSRAMRoleCredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider, CustomStringConvertible {
    /// The metadata service of every ECS instance.
    public static let defaultMetadataEndpoint = URL(string: "http://100.100.100.200")!
    /// How long a session token asks to live: 6 hours, the most the service grants.
    public static let tokenLifetimeSeconds = 21_600

    /// The role, when given (or set in `ALIBABA_CLOUD_ECS_METADATA`); `nil`: asked of the service.
    public let roleName: String?
    /// Whether requests without a session token are refused by this provider (no IMDSv1 fallback).
    public let disableIMDSv1: Bool
    /// The metadata service (another address only for tests and proxies).
    public let metadataEndpoint: URL
    let refreshing: OSSRefreshingCredentialProvider

    /// - Parameters:
    ///   - roleName: the instance's RAM role; `nil` reads `ALIBABA_CLOUD_ECS_METADATA`, else asks the service.
    ///   - disableIMDSv1: refuse to fall back to requests without a session token; `nil` reads
    ///     `ALIBABA_CLOUD_IMDSV1_DISABLED` (`true`), else allows the fallback.
    ///   - metadataEndpoint: the metadata service, `http://100.100.100.200` on an instance.
    ///   - timeout: each metadata request's timeout (default 1 s).
    ///   - refreshAhead: how long before the expiration the credentials are fetched again (default 15 minutes:
    ///     the service hands out new credentials well before the old ones expire).
    ///   - environment: where the variables above are read (the process environment by default).
    /// - Throws: ``OSSClientError`` `invalidArgument` when `ALIBABA_CLOUD_ECS_METADATA_DISABLED` is `true` or the
    ///   endpoint is not http(s).
    public init(
        roleName: String? = nil, disableIMDSv1: Bool? = nil, metadataEndpoint: URL = defaultMetadataEndpoint,
        timeout: Duration = .seconds(1), refreshAhead: Duration = .seconds(900),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        if environment["ALIBABA_CLOUD_ECS_METADATA_DISABLED"]?.lowercased() == "true" {
            throw OSSClientError.invalidArgument(
                "the ECS metadata service is disabled (ALIBABA_CLOUD_ECS_METADATA_DISABLED=true)")
        }
        guard let scheme = metadataEndpoint.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw OSSClientError.invalidArgument("the ECS metadata endpoint must be http or https")
        }
        let role = roleName ?? environment["ALIBABA_CLOUD_ECS_METADATA"].flatMap { $0.isEmpty ? nil : $0 }
        let strict = disableIMDSv1 ?? (environment["ALIBABA_CLOUD_IMDSV1_DISABLED"]?.lowercased() == "true")
        self.roleName = role
        self.disableIMDSv1 = strict
        self.metadataEndpoint = metadataEndpoint
        let service = MetadataService(
            endpoint: metadataEndpoint, disableIMDSv1: strict, timeout: timeout.timeInterval)
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) {
            try await service.credentials(role: role)
        }
    }

    public func credentials() async throws -> OSSCredentials {
        try await refreshing.credentials()
    }

    /// Forgets the cached credentials; the next request fetches new ones.
    public func invalidate() async {
        await refreshing.invalidate()
    }

    /// How many times the metadata service was asked for credentials.
    public var fetchCount: Int {
        get async { await refreshing.fetchCount }
    }

    public var description: String {
        "OSSECSRAMRoleCredentialProvider(role: \(roleName ?? "from the metadata service"), endpoint: \(metadataEndpoint))"
    }

    /// The metadata service's three requests.
    struct MetadataService: Sendable {
        let endpoint: URL
        let disableIMDSv1: Bool
        let timeout: TimeInterval
        static let name = "the ECS metadata service"
        static let credentialsPath = "/latest/meta-data/ram/security-credentials/"

        func credentials(role given: String?) async throws -> OSSFederationToken {
            let token = try await sessionToken()
            let role: String
            if let given {
                role = given
            } else {
                let listed = try await get(Self.credentialsPath, token: token)
                role = String(decoding: listed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                guard !role.isEmpty, !role.contains("/"), !role.contains("\n") else {
                    throw OSSClientError(.signFailed, "\(Self.name) lists no RAM role for this instance")
                }
            }
            let escaped = role.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? role
            return try Self.parse(try await get(Self.credentialsPath + escaped, token: token), role: role)
        }

        /// IMDSv2's session token; `nil` when the service gives none and IMDSv1 is allowed.
        func sessionToken() async throws -> String? {
            let reply: OSSCredentialHTTP.Reply
            do {
                reply = try await OSSCredentialHTTP.send(
                    "PUT", url: url("/latest/api/token"),
                    headers: ["X-aliyun-ecs-metadata-token-ttl-seconds": String(tokenLifetimeSeconds)],
                    timeout: timeout, service: Self.name)
            } catch let error as OSSClientError where error.code == .networkError && !disableIMDSv1 {
                return nil
            }
            guard reply.status == 200, let token = String(data: reply.body, encoding: .utf8), !token.isEmpty else {
                if disableIMDSv1 {
                    throw OSSClientError(
                        .signFailed,
                        "\(Self.name) gave no session token (HTTP \(reply.status)) and IMDSv1 is disabled")
                }
                return nil
            }
            return token
        }

        func get(_ path: String, token: String?) async throws -> Data {
            var headers: [String: String] = [:]
            if let token { headers["X-aliyun-ecs-metadata-token"] = token }
            let reply = try await OSSCredentialHTTP.send(
                "GET", url: url(path), headers: headers, timeout: timeout, service: Self.name)
            guard reply.status == 200 else {
                throw OSSClientError(.signFailed, "\(Self.name) answered HTTP \(reply.status) to GET \(path)")
            }
            return reply.body
        }

        func url(_ path: String) -> URL {
            URL(string: endpoint.absoluteString.trimmingSuffix("/") + path) ?? endpoint
        }

        /// The role's credentials as the service sends them.
        static func parse(_ body: Data, role: String) throws -> OSSFederationToken {
            try OSSCredentialHTTP.parseSessionCredentials(
                body, from: "\(name)'s credentials for role \(role)", codeRequired: true)
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
