import Foundation

/// The default credentials chain of the Alibaba Cloud Credentials libraries (credentials-go, credentials-python):
/// the first of these that yields credentials answers, and then answers every later request alone.
///
/// 1. the environment: `ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET`, optional
///    `ALIBABA_CLOUD_SECURITY_TOKEN` (``OSSEnvironmentCredentialProvider`` with ``OSSEnvironmentCredentialProvider/Variables/alibabaCloud``);
/// 2. OIDC (RRSA), when `ALIBABA_CLOUD_ROLE_ARN`, `ALIBABA_CLOUD_OIDC_PROVIDER_ARN` and
///    `ALIBABA_CLOUD_OIDC_TOKEN_FILE` are all set (``OSSOIDCRoleCredentialProvider``);
/// 3. the `aliyun` CLI's profile (``OSSCLIProfileCredentialProvider``), unless
///    `ALIBABA_CLOUD_CLI_PROFILE_DISABLED=true`;
/// 4. the credentials file's profile (``OSSProfileCredentialProvider``);
/// 5. the ECS instance's RAM role (``OSSECSRAMRoleCredentialProvider``), unless
///    `ALIBABA_CLOUD_ECS_METADATA_DISABLED=true`;
/// 6. the credentials URI (``OSSURICredentialProvider``), when `ALIBABA_CLOUD_CREDENTIALS_URI` is set.
///
/// When none answers, the error is one ``OSSClientError`` `signFailed` listing what each step found (never a
/// secret); ``answeredBy`` says which step answered.
///
/// ```swift
/// let client = try OSSClient(endpoint: "https://oss-cn-hangzhou.aliyuncs.com",
///                            credentialProvider: OSSDefaultCredentialProvider())
/// ```
public final class OSSDefaultCredentialProvider: OSSCredentialProvider, OSSRefreshBackedCredentialProvider, CustomStringConvertible {
    /// One step of the chain: its name, and its provider or why it was left out.
    struct Step: Sendable {
        var name: String
        var provider: Result<any OSSCredentialProvider, OSSClientError>
    }

    let steps: [Step]
    private let answering = OSSLockedValue<Step?>(nil)

    /// - Parameters:
    ///   - environment: where the variables (and `HOME`) are read, by every step.
    ///   - metadataEndpoint: the metadata service of the ECS step and of ECS profiles (another address only for
    ///     tests).
    ///   - metadataTimeout: each metadata request's timeout (1 s, as the libraries: off an instance it fails fast).
    ///   - stsEndpoint: the STS endpoint of the OIDC step and of role profiles (host or URL); `nil`: as
    ///     ``OSSRAMRoleCredentialProvider`` chooses it (`ALIBABA_CLOUD_STS_REGION`, else `sts.aliyuncs.com`).
    public init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        metadataEndpoint: URL = OSSECSRAMRoleCredentialProvider.defaultMetadataEndpoint,
        metadataTimeout: Duration = .seconds(1), stsEndpoint: String? = nil
    ) {
        func step(_ name: String, _ make: () throws -> any OSSCredentialProvider) -> Step {
            do {
                return Step(name: name, provider: .success(try make()))
            } catch let error as OSSClientError {
                return Step(name: name, provider: .failure(error))
            } catch {
                return Step(name: name, provider: .failure(OSSClientError(.signFailed, "\(error)")))
            }
        }
        let oidc = ["ALIBABA_CLOUD_ROLE_ARN", "ALIBABA_CLOUD_OIDC_PROVIDER_ARN", "ALIBABA_CLOUD_OIDC_TOKEN_FILE"]
        steps = [
            step("environment") {
                OSSEnvironmentCredentialProvider(variables: .alibabaCloud, environment: environment)
            },
            step("OIDC role") {
                guard oidc.allSatisfy({ environment.nonEmpty($0) != nil }) else {
                    throw OSSClientError.invalidArgument("skipped: \(oidc.joined(separator: ", ")) are not all set")
                }
                return try OSSOIDCRoleCredentialProvider(stsEndpoint: stsEndpoint, environment: environment)
            },
            step("aliyun CLI profile") {
                try OSSCLIProfileCredentialProvider(
                    metadataEndpoint: metadataEndpoint, stsEndpoint: stsEndpoint, environment: environment)
            },
            step("credentials file profile") {
                OSSProfileCredentialProvider(
                    metadataEndpoint: metadataEndpoint, stsEndpoint: stsEndpoint, environment: environment)
            },
            step("ECS RAM role") {
                try OSSECSRAMRoleCredentialProvider(
                    metadataEndpoint: metadataEndpoint, timeout: metadataTimeout, environment: environment)
            },
            step("credentials URI") {
                guard environment.nonEmpty("ALIBABA_CLOUD_CREDENTIALS_URI") != nil else {
                    throw OSSClientError.invalidArgument("skipped: ALIBABA_CLOUD_CREDENTIALS_URI is not set")
                }
                return try OSSURICredentialProvider(environment: environment)
            },
        ]
    }

    /// The step that answered (`environment`, `OIDC role`, `aliyun CLI profile`, `credentials file profile`, `ECS RAM role`,
    /// `credentials URI`); `nil` before the first credentials.
    public var answeredBy: String? {
        answering.withLockedValue { $0?.name }
    }

    /// The provider of the step that answered; `nil` before the first credentials.
    package var answeringProvider: (any OSSCredentialProvider)? {
        answering.withLockedValue { step in step.flatMap { try? $0.provider.get() } }
    }

    public func credentials() async throws -> OSSCredentials {
        try await signingCredentials().credentials
    }

    /// The answering step's credentials (and, when it refreshes, its refreshing provider: a rejection refreshes
    /// what answered).
    func signingCredentials() async throws -> OSSSigningCredentials {
        if let step = answering.withLockedValue({ $0 }), case .success(let provider) = step.provider {
            return try await OSSSigningCredentials.of(provider)
        }
        var found: [String] = []
        for step in steps {
            switch step.provider {
            case .failure(let error):
                found.append("\(step.name): \(error.message)")
            case .success(let provider):
                do {
                    let credentials = try await OSSSigningCredentials.of(provider)
                    answering.withLockedValue { $0 = $0 ?? step }
                    return credentials
                } catch let error as OSSClientError where error.code == .taskCancelled {
                    throw error
                } catch let error as OSSClientError {
                    found.append("\(step.name): \(error.message)")
                } catch is CancellationError {
                    throw OSSClientError.cancelled()
                } catch {
                    found.append("\(step.name): \(type(of: error)) failure")
                }
            }
        }
        throw OSSClientError(
            .signFailed, "no credentials from the default chain: " + found.joined(separator: "; "))
    }

    public var description: String {
        "OSSDefaultCredentialProvider(\(steps.map(\.name).joined(separator: " → ")), answered by: \(answeredBy ?? "none yet"))"
    }
}
