import Foundation

/// Credentials from a profile of the `aliyun` CLI's configuration, as the Credentials libraries read it.
///
/// - The file: `ALIBABA_CLOUD_CONFIG_FILE` (credentials-go), else `~/.aliyun/config.json`; `~` is `HOME`.
/// - The profile: given, else `ALIBABA_CLOUD_PROFILE`, else the file's `current`.
/// - The format: JSON, `{"current": name, "profiles": [{"name", "mode", ...}]}`.
/// - The modes this SDK maps: `AK` (`access_key_id`, `access_key_secret`), `StsToken` (the same and `sts_token`),
///   `EcsRamRole` (`ram_role_name`, optional: ``OSSECSRAMRoleCredentialProvider``), `External`
///   (`process_command`: ``OSSExternalCredentialProvider``; the credentials it prints are not written back into
///   the file, as the CLI would), `RamRoleArn` (`access_key_id`, `access_key_secret`, `ram_role_arn`, optional
///   `ram_session_name`, `expired_seconds`, `policy`, `external_id`, `sts_region`, `enable_vpc`:
///   ``OSSRAMRoleCredentialProvider``), `ChainableRamRoleArn` (the same role settings, assumed with the credentials
///   of the profile named by `source_profile`) and `OIDC` (`ram_role_arn`, `oidc_provider_arn`, `oidc_token_file`,
///   optional `role_session_name`, `expired_seconds`, `policy`, `sts_region`, `enable_vpc`:
///   ``OSSOIDCRoleCredentialProvider``). `CloudSSO` and `OAuth` need sign-in calls this SDK does not make: they are
///   refused by name.
/// - `ALIBABA_CLOUD_CLI_PROFILE_DISABLED=true` turns the provider off.
///
/// The file is read on the first request; the provider it describes then answers every later one. Every failure is
/// an ``OSSClientError`` `signFailed` naming the file and the profile, never a secret.
public final class OSSCLIProfileCredentialProvider: OSSCredentialProvider, OSSProfileBackedProvider, CustomStringConvertible {
    /// The file read.
    public let path: String
    /// The profile asked for; `nil`: the file's `current`.
    public let profileName: String?
    private let metadataEndpoint: URL
    private let stsEndpoint: String?
    private let environment: [String: String]
    let resolved = OSSLockedValue<(any OSSCredentialProvider)?>(nil)
    private let resolvedProfile = OSSLockedValue<(name: String, mode: String)?>(nil)

    /// - Parameters:
    ///   - profileName: the profile; `nil` reads `ALIBABA_CLOUD_PROFILE`, else the file's `current`.
    ///   - path: the file; `nil` reads `ALIBABA_CLOUD_CONFIG_FILE`, else `~/.aliyun/config.json`.
    ///   - metadataEndpoint: the metadata service an `EcsRamRole` profile asks (another address only for tests).
    ///   - stsEndpoint: the STS endpoint of the role modes (host or URL); `nil`: from the profile's `sts_region`, as
    ///     ``OSSRAMRoleCredentialProvider`` chooses it.
    ///   - environment: where the variables (and `HOME`) are read.
    /// - Throws: ``OSSClientError`` `invalidArgument` when `ALIBABA_CLOUD_CLI_PROFILE_DISABLED` is `true`.
    public init(
        profileName: String? = nil, path: String? = nil,
        metadataEndpoint: URL = OSSECSRAMRoleCredentialProvider.defaultMetadataEndpoint, stsEndpoint: String? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws {
        if environment["ALIBABA_CLOUD_CLI_PROFILE_DISABLED"]?.lowercased() == "true" {
            throw OSSClientError.invalidArgument(
                "the aliyun CLI profile is disabled (ALIBABA_CLOUD_CLI_PROFILE_DISABLED=true)")
        }
        self.profileName = profileName ?? environment.nonEmpty("ALIBABA_CLOUD_PROFILE")
        self.path =
            path ?? environment.nonEmpty("ALIBABA_CLOUD_CONFIG_FILE")
            ?? OSSProfileFile.home(environment) + "/.aliyun/config.json"
        self.metadataEndpoint = metadataEndpoint
        self.stsEndpoint = stsEndpoint
        self.environment = environment
    }

    public func credentials() async throws -> OSSCredentials {
        try await resolvedProvider().credentials()
    }

    /// The profile read and its mode; `nil` before the file is read.
    package var answeringProfile: (name: String, mode: String)? {
        resolvedProfile.withLockedValue { $0 }
    }

    public var description: String {
        "OSSCLIProfileCredentialProvider(profile: \(profileName ?? "current"), file: \(path))"
    }

    struct Configuration: Decodable {
        var current: String?
        var profiles: [Profile]?
    }

    struct Profile: Decodable {
        var name: String?
        var mode: String?
        var access_key_id: String?
        var access_key_secret: String?
        var sts_token: String?
        var ram_role_name: String?
        var process_command: String?
        var ram_role_arn: String?
        var ram_session_name: String?
        var role_session_name: String?
        var expired_seconds: Lenient<Int>?
        var policy: String?
        var external_id: String?
        var sts_region: String?
        var enable_vpc: Lenient<Bool>?
        var oidc_provider_arn: String?
        var oidc_token_file: String?
        var source_profile: String?
    }

    /// A number or flag the CLI writes as such, tolerated as a string; anything else reads as absent.
    struct Lenient<Value: Decodable & LosslessStringConvertible>: Decodable {
        var value: Value?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Value.self) {
                self.value = value
            } else {
                value = (try? container.decode(String.self)).flatMap(Value.init)
            }
        }
    }

    func resolve() throws -> any OSSCredentialProvider {
        let what = "the aliyun CLI configuration"
        let text = try OSSProfileFile.read(path, what: what)
        let configuration: Configuration
        do {
            configuration = try JSONDecoder().decode(Configuration.self, from: Data(text.utf8))
        } catch {
            throw OSSClientError(.signFailed, "\(what) \(path) is not the CLI's JSON (\(Self.describe(error)))")
        }
        guard let profiles = configuration.profiles, !profiles.isEmpty else {
            throw OSSClientError(.signFailed, "\(what) \(path) has no profiles")
        }
        guard let wanted = profileName ?? configuration.current.flatMap({ $0.isEmpty ? nil : $0 }) else {
            throw OSSClientError(.signFailed, "\(what) \(path) names no current profile and none was given")
        }
        let provider = try provider(named: wanted, in: profiles, visited: [])
        let mode = profiles.first(where: { $0.name == wanted })?.mode ?? ""
        resolvedProfile.withLockedValue { $0 = $0 ?? (wanted, mode) }
        return provider
    }

    /// The provider of profile `wanted`; `visited` are the profiles whose `source_profile` led here (a loop is an
    /// error, not a hang).
    private func provider(named wanted: String, in profiles: [Profile], visited: [String]) throws
        -> any OSSCredentialProvider
    {
        let what = "the aliyun CLI configuration"
        guard let profile = profiles.first(where: { $0.name == wanted }) else {
            throw OSSClientError(
                .signFailed,
                "\(what) \(path) has no profile \(wanted) (it has: \(profiles.compactMap(\.name).joined(separator: ", ")))")
        }
        let name = "profile \(wanted) of \(what) \(path)"
        func value(_ field: String, _ value: String?) throws -> String {
            guard let value, !value.isEmpty else { throw OSSClientError(.signFailed, "\(name) lacks \(field)") }
            return value
        }
        /// The profile's provider; its refusal of the settings becomes `signFailed` naming the profile.
        func described(_ make: () throws -> any OSSCredentialProvider) throws -> any OSSCredentialProvider {
            do {
                return try make()
            } catch let error as OSSClientError where error.code == .invalidArgument {
                throw OSSClientError(.signFailed, "\(name): \(error.message)")
            }
        }
        /// `expired_seconds` (0 or absent: the libraries' 3600).
        let duration = profile.expired_seconds?.value.flatMap { $0 == 0 ? nil : $0 } ?? 3600
        func role(source: any OSSCredentialProvider) throws -> any OSSCredentialProvider {
            let arn = try value("ram_role_arn", profile.ram_role_arn)
            return try described {
                try OSSRAMRoleCredentialProvider(
                    source: source, roleArn: arn, roleSessionName: profile.ram_session_name,
                    policy: profile.policy, durationSeconds: duration, externalId: profile.external_id,
                    stsEndpoint: stsEndpoint, stsRegion: profile.sts_region, enableVPC: profile.enable_vpc?.value,
                    environment: environment)
            }
        }
        switch profile.mode {
        case "AK":
            return OSSStaticCredentialProvider(
                accessKeyId: try value("access_key_id", profile.access_key_id),
                accessKeySecret: try value("access_key_secret", profile.access_key_secret))
        case "StsToken":
            return OSSStsCredentialProvider(
                accessKeyId: try value("access_key_id", profile.access_key_id),
                accessKeySecret: try value("access_key_secret", profile.access_key_secret),
                securityToken: try value("sts_token", profile.sts_token))
        case "EcsRamRole":
            return try described {
                try OSSECSRAMRoleCredentialProvider(
                    roleName: profile.ram_role_name.flatMap { $0.isEmpty ? nil : $0 },
                    metadataEndpoint: metadataEndpoint, environment: environment)
            }
        case "External":
            let command = try value("process_command", profile.process_command)
            return try described { try OSSExternalCredentialProvider(command: command) }
        case "RamRoleArn":
            return try role(
                source: OSSStaticCredentialProvider(
                    accessKeyId: try value("access_key_id", profile.access_key_id),
                    accessKeySecret: try value("access_key_secret", profile.access_key_secret)))
        case "ChainableRamRoleArn":
            let source = try value("source_profile", profile.source_profile)
            guard !visited.contains(source), source != wanted else {
                throw OSSClientError(
                    .signFailed, "\(name): its source_profile chain loops (\((visited + [wanted, source]).joined(separator: " → ")))")
            }
            return try role(source: try provider(named: source, in: profiles, visited: visited + [wanted]))
        case "OIDC":
            return try described {
                try OSSOIDCRoleCredentialProvider(
                    roleArn: try value("ram_role_arn", profile.ram_role_arn),
                    oidcProviderArn: try value("oidc_provider_arn", profile.oidc_provider_arn),
                    oidcTokenFile: try value("oidc_token_file", profile.oidc_token_file),
                    roleSessionName: profile.role_session_name, policy: profile.policy, durationSeconds: duration,
                    stsEndpoint: stsEndpoint, stsRegion: profile.sts_region, enableVPC: profile.enable_vpc?.value,
                    environment: environment)
            }
        case let mode? where ["CloudSSO", "OAuth"].contains(mode):
            throw OSSClientError(.signFailed, "\(name) has mode \(mode), which this SDK does not support")
        case let mode?:
            throw OSSClientError(.signFailed, "\(name) has an unknown mode \(mode)")
        case nil:
            throw OSSClientError(.signFailed, "\(name) has no mode")
        }
    }

    /// Where a JSON decoding failure is, without the document's values.
    private static func describe(_ error: any Error) -> String {
        switch error as? DecodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            let path = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return "a value of the wrong type at \(path.isEmpty ? "the top" : path)"
        default:
            return "malformed JSON"
        }
    }
}
