import Foundation

/// Credentials from a profile of the `aliyun` CLI's configuration, as the Credentials libraries read it.
///
/// - The file: `ALIBABA_CLOUD_CONFIG_FILE` (credentials-go), else `~/.aliyun/config.json`; `~` is `HOME`.
/// - The profile: given, else `ALIBABA_CLOUD_PROFILE`, else the file's `current`.
/// - The format: JSON, `{"current": name, "profiles": [{"name", "mode", ...}]}`.
/// - The modes this SDK maps: `AK` (`access_key_id`, `access_key_secret`), `StsToken` (the same and `sts_token`),
///   `EcsRamRole` (`ram_role_name`, optional: ``OSSECSRAMRoleCredentialProvider``) and `External`
///   (`process_command`: ``OSSExternalCredentialProvider``; the credentials it prints are not written back into
///   the file, as the CLI would). `RamRoleArn`, `ChainableRamRoleArn`, `OIDC`, `CloudSSO` and `OAuth` need STS or
///   sign-in calls this SDK does not make yet: they are refused by name.
/// - `ALIBABA_CLOUD_CLI_PROFILE_DISABLED=true` turns the provider off.
///
/// The file is read on the first request; the provider it describes then answers every later one. Every failure is
/// an ``OSSClientError`` `signFailed` naming the file and the profile, never a secret.
public final class OSSCLIProfileCredentialProvider: OSSCredentialProvider, CustomStringConvertible {
    /// The file read.
    public let path: String
    /// The profile asked for; `nil`: the file's `current`.
    public let profileName: String?
    private let metadataEndpoint: URL
    private let environment: [String: String]
    private let resolved = OSSLockedValue<(any OSSCredentialProvider)?>(nil)

    /// - Parameters:
    ///   - profileName: the profile; `nil` reads `ALIBABA_CLOUD_PROFILE`, else the file's `current`.
    ///   - path: the file; `nil` reads `ALIBABA_CLOUD_CONFIG_FILE`, else `~/.aliyun/config.json`.
    ///   - metadataEndpoint: the metadata service an `EcsRamRole` profile asks (another address only for tests).
    ///   - environment: where the variables (and `HOME`) are read.
    /// - Throws: ``OSSClientError`` `invalidArgument` when `ALIBABA_CLOUD_CLI_PROFILE_DISABLED` is `true`.
    public init(
        profileName: String? = nil, path: String? = nil,
        metadataEndpoint: URL = OSSECSRAMRoleCredentialProvider.defaultMetadataEndpoint,
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
        self.environment = environment
    }

    public func credentials() async throws -> OSSCredentials {
        if let provider = resolved.withLockedValue({ $0 }) {
            return try await provider.credentials()
        }
        let provider = try resolve()
        resolved.withLockedValue { $0 = $0 ?? provider }
        return try await provider.credentials()
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
    }

    private func resolve() throws -> any OSSCredentialProvider {
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
            do {
                return try OSSECSRAMRoleCredentialProvider(
                    roleName: profile.ram_role_name.flatMap { $0.isEmpty ? nil : $0 },
                    metadataEndpoint: metadataEndpoint, environment: environment)
            } catch let error as OSSClientError {
                throw OSSClientError(.signFailed, "\(name): \(error.message)")
            }
        case "External":
            do {
                return try OSSExternalCredentialProvider(
                    command: try value("process_command", profile.process_command))
            } catch let error as OSSClientError where error.code == .invalidArgument {
                throw OSSClientError(.signFailed, "\(name): \(error.message)")
            }
        case let mode? where ["RamRoleArn", "ChainableRamRoleArn", "OIDC", "CloudSSO", "OAuth"].contains(mode):
            throw OSSClientError(.signFailed, "\(name) has mode \(mode), which this SDK does not support yet")
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
