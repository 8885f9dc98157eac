#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads `OSS_ACCESS_KEY_ID`, `OSS_ACCESS_KEY_SECRET` and the optional `OSS_SESSION_TOKEN` from the environment
/// each time credentials are needed.
public struct OSSEnvironmentCredentialProvider: OSSCredentialProvider {
    private let environment: @Sendable () -> [String: String]

    public init() {
        environment = { ProcessInfo.processInfo.environment }
    }

    /// Reads from `environment` instead of the process environment (for tests).
    public init(environment: [String: String]) {
        self.environment = { environment }
    }

    public func credentials() async throws -> OSSCredentials {
        let env = environment()
        guard let id = env["OSS_ACCESS_KEY_ID"], !id.isEmpty else {
            throw OSSClientError(.signFailed, "OSS_ACCESS_KEY_ID is not set in the environment")
        }
        guard let secret = env["OSS_ACCESS_KEY_SECRET"], !secret.isEmpty else {
            throw OSSClientError(.signFailed, "OSS_ACCESS_KEY_SECRET is not set in the environment")
        }
        let token = env["OSS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return OSSCredentials(accessKeyId: id, accessKeySecret: secret, securityToken: token)
    }
}
