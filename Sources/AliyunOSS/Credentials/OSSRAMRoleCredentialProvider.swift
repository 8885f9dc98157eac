import Foundation

/// Temporary credentials of a RAM role, assumed with STS `AssumeRole` by the credentials of another provider, as the
/// Credentials libraries' `ram_role_arn` provider does: a RAM user's (or another role's) keys ask STS for the role's
/// credentials, optionally narrowed by a session policy.
///
/// The request is signed with the source provider's current credentials (its security token sent along when it has
/// one: role chaining). The role's credentials are cached and assumed again ``refreshAhead`` before they expire or
/// after OSS refuses them; concurrent requests share one call (``OSSRefreshingCredentialProvider``). STS's refusal is
/// an ``OSSClientError`` `signFailed` naming the role, with ``OSSSTSError`` as its underlying error; an STS that
/// cannot be reached or does not answer within the timeout is `networkError`.
///
/// ```swift
/// let user = OSSStaticCredentialProvider(accessKeyId: "LTAI…", accessKeySecret: "…")
/// let provider = try OSSRAMRoleCredentialProvider(
///     source: user, roleArn: "acs:ram::123456789012****:role/oss-uploader", roleSessionName: "uploader")
/// ```
public final class OSSRAMRoleCredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider,
    CustomStringConvertible
{
    /// The role assumed.
    public let roleArn: String
    /// The session's name (STS's `RoleSessionName`, in the role's audit trail).
    public let roleSessionName: String
    /// How long the role's credentials live, in seconds (900 at least; at most the role's maximum).
    public let durationSeconds: Int
    /// The STS endpoint asked.
    public let stsEndpoint: URL
    let refreshing: OSSRefreshingCredentialProvider

    /// - Parameters:
    ///   - source: the credentials that sign `AssumeRole` (a RAM user's keys, or another provider's).
    ///   - roleArn: the role; `nil` reads `ALIBABA_CLOUD_ROLE_ARN`.
    ///   - roleSessionName: `nil` reads `ALIBABA_CLOUD_ROLE_SESSION_NAME`, else `aliyun-oss-swift-<unix time>`.
    ///   - policy: a session policy (JSON) narrowing the role's permissions.
    ///   - durationSeconds: the credentials' lifetime (default 3600, at least 900).
    ///   - externalId: the role's external id, when its trust policy requires one.
    ///   - stsEndpoint: a host (`sts.cn-hangzhou.aliyuncs.com`) or URL; `nil`: from `stsRegion` /
    ///     `ALIBABA_CLOUD_STS_REGION` (and `enableVPC` / `ALIBABA_CLOUD_VPC_ENDPOINT_ENABLED`), else `sts.aliyuncs.com`.
    ///   - timeout: the STS call's timeout (default 10 s).
    ///   - refreshAhead: how long before the expiration the role is assumed again (default 15 minutes, as the
    ///     libraries; credentials that live shorter than twice this are refreshed at half their life).
    ///   - environment: where the variables are read.
    /// - Throws: ``OSSClientError`` `invalidArgument` without a role ARN, for a duration under 900 s or an endpoint
    ///   that is not http(s).
    public init(
        source: any OSSCredentialProvider, roleArn: String? = nil, roleSessionName: String? = nil,
        policy: String? = nil, durationSeconds: Int = 3600, externalId: String? = nil, stsEndpoint: String? = nil,
        stsRegion: String? = nil, enableVPC: Bool? = nil, timeout: Duration = .seconds(10),
        refreshAhead: Duration = .seconds(900), environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        guard let role = roleArn.flatMap({ $0.isEmpty ? nil : $0 }) ?? environment.nonEmpty("ALIBABA_CLOUD_ROLE_ARN") else {
            throw OSSClientError.invalidArgument("the RAM role provider needs a role ARN (or ALIBABA_CLOUD_ROLE_ARN)")
        }
        guard durationSeconds >= 900 else {
            throw OSSClientError.invalidArgument(
                "the RAM role provider's session duration must be at least 900 s, not \(durationSeconds)")
        }
        self.roleArn = role
        self.roleSessionName = OSSRAMRoleCredentialProvider.sessionName(roleSessionName, environment)
        self.durationSeconds = durationSeconds
        self.stsEndpoint = try OSSSTSClient.endpoint(
            stsEndpoint, region: stsRegion, vpc: enableVPC, environment: environment)
        var parameters = [
            "RoleArn": role, "RoleSessionName": self.roleSessionName, "DurationSeconds": String(durationSeconds),
        ]
        if let policy, !policy.isEmpty { parameters["Policy"] = policy }
        if let externalId, !externalId.isEmpty { parameters["ExternalId"] = externalId }
        let caller = "the RAM role provider (role \(role))"
        let client = OSSSTSClient(endpoint: self.stsEndpoint, timeout: timeout.timeInterval, caller: caller)
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) { [parameters] in
            // Source credentials STS refuses as expired or unknown are refreshed once, when they refresh at all
            // (role chaining: the source is another role whose credentials were revoked early).
            var retried = false
            while true {
                let signing: OSSSigningCredentials
                do {
                    signing = try await OSSSigningCredentials.of(source)
                } catch {
                    throw OSSClientError.passing(error) {
                        OSSClientError(.signFailed, "\(caller): its source credentials failed", underlying: $0)
                    }
                }
                do {
                    return try await client.assumeRole(parameters, signedWith: signing.credentials)
                } catch let error as OSSClientError {
                    guard !retried, let from = signing.source,
                        let code = (error.underlying as? OSSSTSError)?.code, OSSRAMRoleCredentialProvider.sourceRejections.contains(code)
                    else { throw error }
                    retried = true
                    await from.provider.invalidate(rejectedEpoch: from.epoch)
                }
            }
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
        "OSSRAMRoleCredentialProvider(role: \(roleArn), session: \(roleSessionName), sts: \(stsEndpoint.absoluteString))"
    }

    /// STS's codes for source credentials that are expired or unknown (not for a signature or permission problem).
    static let sourceRejections: Set<String> = [
        "InvalidSecurityToken.Expired", "InvalidSecurityToken.Malformed", "InvalidSecurityToken.Mismatch",
        "InvalidAccessKeyId.NotFound",
    ]

    /// The session name given, else `ALIBABA_CLOUD_ROLE_SESSION_NAME`, else `aliyun-oss-swift-<unix time>`.
    static func sessionName(_ given: String?, _ environment: [String: String]) -> String {
        given.flatMap { $0.isEmpty ? nil : $0 } ?? environment.nonEmpty("ALIBABA_CLOUD_ROLE_SESSION_NAME")
            ?? "aliyun-oss-swift-\(Int(Date().timeIntervalSince1970))"
    }
}
