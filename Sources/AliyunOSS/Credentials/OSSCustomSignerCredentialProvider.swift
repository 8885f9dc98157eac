/// Signs V1 requests with a closure instead of a secret held by the app (like the iOS SDK's
/// `OSSCustomSignerCredentialProvider`): the closure receives the V1 string to sign, typically sends it to
/// the app's server, and returns either the full `OSS <AccessKeyId>:<Signature>` value or just the signature
/// (then ``accessKeyId`` must be set).
///
/// Only signature V1 is supported: requests are signed in their `Authorization` header, presigned URLs
/// (``OSSClient/presignConstrainURL(bucket:key:method:expiration:parameters:headers:)``) with the closure's answer to
/// the URL's string to sign, as in the iOS SDK.
public struct OSSCustomSignerCredentialProvider: OSSCredentialProvider {
    public typealias Sign = @Sendable (_ stringToSign: String) async throws -> String

    /// Used when the closure returns a bare signature.
    public let accessKeyId: String?
    /// Sent as `x-oss-security-token` (and signed) when set.
    public let securityToken: String?
    let sign: Sign

    public init(accessKeyId: String? = nil, securityToken: String? = nil, sign: @escaping Sign) {
        self.accessKeyId = accessKeyId
        self.securityToken = securityToken
        self.sign = sign
    }

    /// A custom signer has no secret to hand out.
    public func credentials() async throws -> OSSCredentials {
        throw OSSClientError(.signFailed, "a custom signer provides signatures, not credentials")
    }

    /// Turns the closure's answer into an `Authorization` header value.
    func authorization(for stringToSign: String) async throws -> String {
        let answer: String
        do {
            answer = try await sign(stringToSign)
        } catch {
            throw OSSClientError.passing(error) {
                OSSClientError(.signFailed, "the custom signer failed", underlying: $0)
            }
        }
        if answer.hasPrefix("OSS ") { return answer }
        guard let accessKeyId, !accessKeyId.isEmpty, !answer.isEmpty else {
            throw OSSClientError(
                .signFailed, "the custom signer returned a bare signature but no accessKeyId was configured")
        }
        return "OSS \(accessKeyId):\(answer)"
    }
}
