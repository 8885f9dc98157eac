/// An access key pair, optionally with an STS security token.
///
/// `description` and `debugDescription` never include the secret or the token, so a credential can be
/// logged or interpolated by mistake without leaking it.
public struct OSSCredentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    public var accessKeyId: String
    public var accessKeySecret: String
    public var securityToken: String?

    public init(accessKeyId: String, accessKeySecret: String, securityToken: String? = nil) {
        self.accessKeyId = accessKeyId
        self.accessKeySecret = accessKeySecret
        self.securityToken = securityToken
    }

    public var description: String {
        "OSSCredentials(accessKeyId: \(accessKeyId), accessKeySecret: <redacted>\(securityToken == nil ? "" : ", securityToken: <redacted>"))"
    }

    public var debugDescription: String { description }
}
