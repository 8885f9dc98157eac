#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an access key pair and an optional security token from the environment each time credentials are needed:
/// `OSS_ACCESS_KEY_ID`, `OSS_ACCESS_KEY_SECRET`, `OSS_SESSION_TOKEN` by default, or the Alibaba Cloud Credentials
/// libraries' `ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET`, `ALIBABA_CLOUD_SECURITY_TOKEN`
/// (``Variables/alibabaCloud``, the first step of ``OSSDefaultCredentialProvider``).
public struct OSSEnvironmentCredentialProvider: OSSCredentialProvider, CustomStringConvertible {
    /// The names of the three variables.
    public struct Variables: Sendable, Hashable {
        public var accessKeyId: String
        public var accessKeySecret: String
        public var securityToken: String

        public init(accessKeyId: String, accessKeySecret: String, securityToken: String) {
            self.accessKeyId = accessKeyId
            self.accessKeySecret = accessKeySecret
            self.securityToken = securityToken
        }

        /// `OSS_ACCESS_KEY_ID`, `OSS_ACCESS_KEY_SECRET`, `OSS_SESSION_TOKEN` (the OSS SDKs' names).
        public static let oss = Variables(
            accessKeyId: "OSS_ACCESS_KEY_ID", accessKeySecret: "OSS_ACCESS_KEY_SECRET",
            securityToken: "OSS_SESSION_TOKEN")
        /// `ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET`, `ALIBABA_CLOUD_SECURITY_TOKEN` (the
        /// Credentials libraries' names).
        public static let alibabaCloud = Variables(
            accessKeyId: "ALIBABA_CLOUD_ACCESS_KEY_ID", accessKeySecret: "ALIBABA_CLOUD_ACCESS_KEY_SECRET",
            securityToken: "ALIBABA_CLOUD_SECURITY_TOKEN")
    }

    /// The variables read.
    public let variables: Variables
    private let environment: @Sendable () -> [String: String]

    /// Reads `variables` from the process environment.
    public init(variables: Variables = .oss) {
        self.variables = variables
        environment = { ProcessInfo.processInfo.environment }
    }

    /// Reads from `environment` instead of the process environment (for tests).
    public init(variables: Variables = .oss, environment: [String: String]) {
        self.variables = variables
        self.environment = { environment }
    }

    public func credentials() async throws -> OSSCredentials {
        let env = environment()
        guard let id = env[variables.accessKeyId], !id.isEmpty else {
            throw OSSClientError(.signFailed, "\(variables.accessKeyId) is not set in the environment")
        }
        guard let secret = env[variables.accessKeySecret], !secret.isEmpty else {
            throw OSSClientError(.signFailed, "\(variables.accessKeySecret) is not set in the environment")
        }
        let token = env[variables.securityToken].flatMap { $0.isEmpty ? nil : $0 }
        return OSSCredentials(accessKeyId: id, accessKeySecret: secret, securityToken: token)
    }

    public var description: String {
        "OSSEnvironmentCredentialProvider(\(variables.accessKeyId), \(variables.accessKeySecret), \(variables.securityToken))"
    }
}
