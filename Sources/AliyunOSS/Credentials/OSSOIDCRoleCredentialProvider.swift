import Foundation

/// Temporary credentials of a RAM role for a workload with an OpenID Connect identity, assumed with STS
/// `AssumeRoleWithOIDC`: RRSA on ACK (the pod's service-account token, mounted as a file, is exchanged for the role's
/// credentials), or any CI system that mints OIDC tokens. As the Credentials libraries' `oidc_role_arn` provider, it
/// reads its settings from the environment ACK sets:
///
/// - `ALIBABA_CLOUD_ROLE_ARN`, `ALIBABA_CLOUD_OIDC_PROVIDER_ARN`, `ALIBABA_CLOUD_OIDC_TOKEN_FILE` (all three needed),
/// - `ALIBABA_CLOUD_ROLE_SESSION_NAME` (optional), `ALIBABA_CLOUD_STS_REGION`, `ALIBABA_CLOUD_VPC_ENDPOINT_ENABLED`.
///
/// The token file is read again for every call (the platform rotates it). The credentials are cached and assumed
/// again ``OSSRAMRoleCredentialProvider``-style: ``refreshAhead`` before they expire or after OSS refuses them, one
/// call shared by concurrent requests. A missing or unreadable token file, STS's refusal (``OSSSTSError`` underlying)
/// or an answer that is not STS's JSON is an ``OSSClientError`` `signFailed` naming the provider and role; an STS
/// that cannot be reached or hangs is `networkError`. The token is never logged or put in an error.
///
/// ```swift
/// // In a pod with RRSA enabled: everything comes from the environment.
/// let provider = try OSSOIDCRoleCredentialProvider()
/// ```
public final class OSSOIDCRoleCredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider,
    CustomStringConvertible
{
    public let roleArn: String
    public let oidcProviderArn: String
    /// The token's file, read for every call.
    public let oidcTokenFile: String
    public let roleSessionName: String
    public let durationSeconds: Int
    public let stsEndpoint: URL
    let refreshing: OSSRefreshingCredentialProvider

    /// Each `nil` argument is read from its environment variable (above).
    /// - Throws: ``OSSClientError`` `invalidArgument` when the role ARN, OIDC provider ARN or token file is missing,
    ///   for a duration under 900 s, or an endpoint that is not http(s).
    public init(
        roleArn: String? = nil, oidcProviderArn: String? = nil, oidcTokenFile: String? = nil,
        roleSessionName: String? = nil, policy: String? = nil, durationSeconds: Int = 3600,
        stsEndpoint: String? = nil, stsRegion: String? = nil, enableVPC: Bool? = nil, timeout: Duration = .seconds(10),
        refreshAhead: Duration = .seconds(900), environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        func setting(_ given: String?, _ variable: String, _ what: String) throws -> String {
            guard let value = given.flatMap({ $0.isEmpty ? nil : $0 }) ?? environment.nonEmpty(variable) else {
                throw OSSClientError.invalidArgument("the OIDC role provider needs \(what) (or \(variable))")
            }
            return value
        }
        self.roleArn = try setting(roleArn, "ALIBABA_CLOUD_ROLE_ARN", "a role ARN")
        self.oidcProviderArn = try setting(oidcProviderArn, "ALIBABA_CLOUD_OIDC_PROVIDER_ARN", "an OIDC provider ARN")
        self.oidcTokenFile = try setting(oidcTokenFile, "ALIBABA_CLOUD_OIDC_TOKEN_FILE", "an OIDC token file")
        guard durationSeconds >= 900 else {
            throw OSSClientError.invalidArgument(
                "the OIDC role provider's session duration must be at least 900 s, not \(durationSeconds)")
        }
        self.roleSessionName = OSSRAMRoleCredentialProvider.sessionName(roleSessionName, environment)
        self.durationSeconds = durationSeconds
        self.stsEndpoint = try OSSSTSClient.endpoint(
            stsEndpoint, region: stsRegion, vpc: enableVPC, environment: environment)
        var parameters = [
            "RoleArn": self.roleArn, "OIDCProviderArn": self.oidcProviderArn, "RoleSessionName": self.roleSessionName,
            "DurationSeconds": String(durationSeconds),
        ]
        if let policy, !policy.isEmpty { parameters["Policy"] = policy }
        let caller = "the OIDC role provider (role \(self.roleArn))"
        let client = OSSSTSClient(endpoint: self.stsEndpoint, timeout: timeout.timeInterval, caller: caller)
        let tokenFile = self.oidcTokenFile
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) { [parameters] in
            let token: String
            do {
                token = try OSSProfileFile.read(tokenFile, what: "the OIDC token file")
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } catch let error as OSSClientError {
                throw OSSClientError(.signFailed, "\(caller): \(error.message)", underlying: error.underlying)
            }
            guard !token.isEmpty else {
                throw OSSClientError(.signFailed, "\(caller): the OIDC token file \(tokenFile) is empty")
            }
            var call = parameters
            call["OIDCToken"] = token
            return try await client.assumeRoleWithOIDC(call)
        }
    }

    public func credentials() async throws -> OSSCredentials {
        try await refreshing.credentials()
    }

    /// Forgets the cached credentials; the next request assumes the role again.
    public func invalidate() async {
        await refreshing.invalidate()
    }

    /// How many times STS was asked.
    public var fetchCount: Int {
        get async { await refreshing.fetchCount }
    }

    public var description: String {
        "OSSOIDCRoleCredentialProvider(role: \(roleArn), provider: \(oidcProviderArn), token file: \(oidcTokenFile))"
    }
}
