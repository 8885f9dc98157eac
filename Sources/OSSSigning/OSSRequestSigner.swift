#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The OSS signature versions.
public enum OSSSignatureVersion: String, Sendable, Hashable, CaseIterable {
    /// `Authorization: OSS AK:Signature` (HMAC-SHA1). The default, as in the official SDKs' V1 mode.
    case v1
    /// `OSS4-HMAC-SHA256` with a region-scoped signing key.
    case v4
}

/// Signs requests in place. Pure: the signing time is a parameter, nothing is read from the clock or network.
public protocol OSSRequestSigner: Sendable {
    /// Adds the authentication headers (`Authorization`, date and token headers) to `request`.
    func sign(_ request: inout OSSSignableRequest, credentials: OSSCredentials, date: Date) throws(OSSSigningError)

    /// Adds the presign query parameters to `request` so its URL is valid for `expiresIn` seconds after `date`.
    /// Any `Content-Type`, `Content-MD5` and `x-oss-*` headers already on `request` are signed and must be sent
    /// with the URL.
    func presign(_ request: inout OSSSignableRequest, credentials: OSSCredentials, date: Date, expiresIn: Int64)
        throws(OSSSigningError)
}

extension OSSCredentials {
    func validate() throws(OSSSigningError) {
        if accessKeyId.isEmpty || accessKeySecret.isEmpty {
            throw OSSSigningError(.missingCredentials, "the access key id and secret must not be empty")
        }
    }
}
