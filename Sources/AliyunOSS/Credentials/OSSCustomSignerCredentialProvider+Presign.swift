#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSCustomSignerCredentialProvider {
    /// Presigns `request` (V1 query signing) by asking the closure to sign the URL's string to sign, the iOS
    /// SDK's way: `OSS <AccessKeyId>:<Signature>` becomes `OSSAccessKeyId` and `Signature`.
    ///
    /// - Throws: ``OSSClientError`` `.signFailed` with V4, or when the answer holds no access key id and no
    ///   ``accessKeyId`` is configured.
    func presign(
        _ request: inout OSSSignableRequest, signatureVersion: OSSSignatureVersion, date: Date, expiresIn: Int64
    ) async throws {
        guard signatureVersion == .v1 else {
            throw OSSClientError(.signFailed, "a custom signer can only presign with signature V1")
        }
        let expires = String(Int64(date.timeIntervalSince1970.rounded(.down)) + expiresIn)
        if let securityToken, !securityToken.isEmpty { request.query["security-token"] = securityToken }
        let stringToSign = OSSSignerV1.stringToSign(for: request, dateLine: expires)
        let authorization = try await authorization(for: stringToSign)  // `OSS <AccessKeyId>:<Signature>`
        let credential = authorization.dropFirst("OSS ".count)
        guard let colon = credential.lastIndex(of: ":"), colon != credential.startIndex else {
            throw OSSClientError(.signFailed, "the custom signer's answer is not `OSS <AccessKeyId>:<Signature>`")
        }
        request.query["OSSAccessKeyId"] = String(credential[..<colon])
        request.query["Expires"] = expires
        request.query["Signature"] = String(credential[credential.index(after: colon)...])
    }
}
