/// Supplies the credentials a request is signed with. Called once per request attempt, so an
/// implementation may rotate credentials at any time.
public protocol OSSCredentialProvider: Sendable {
    /// The credentials to sign the next request with.
    func credentials() async throws -> OSSCredentials
}

/// A fixed access key pair.
public struct OSSStaticCredentialProvider: OSSCredentialProvider {
    private let value: OSSCredentials

    public init(accessKeyId: String, accessKeySecret: String) {
        value = OSSCredentials(accessKeyId: accessKeyId, accessKeySecret: accessKeySecret)
    }

    public func credentials() async throws -> OSSCredentials { value }
}

/// Fixed STS credentials: an access key pair with a security token.
public struct OSSStsCredentialProvider: OSSCredentialProvider {
    private let value: OSSCredentials

    public init(accessKeyId: String, accessKeySecret: String, securityToken: String) {
        value = OSSCredentials(accessKeyId: accessKeyId, accessKeySecret: accessKeySecret, securityToken: securityToken)
    }

    public func credentials() async throws -> OSSCredentials { value }
}

/// Credentials passed as a value (handy in tests and samples).
extension OSSCredentials {
    /// A provider that always returns these credentials.
    public var provider: any OSSCredentialProvider {
        if let token = securityToken {
            return OSSStsCredentialProvider(accessKeyId: accessKeyId, accessKeySecret: accessKeySecret, securityToken: token)
        }
        return OSSStaticCredentialProvider(accessKeyId: accessKeyId, accessKeySecret: accessKeySecret)
    }
}
