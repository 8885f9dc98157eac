#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The signature of a PostObject (browser form upload) policy.
///
/// A POST form carries its own authentication: the Base64 of the policy document is both the `policy` form field
/// and the string to sign.
/// - V1: `Signature = Base64(HMAC-SHA1(AccessKeySecret, policy))`, sent with `OSSAccessKeyId`.
/// - V4: `x-oss-signature = hex(HMAC-SHA256(SigningKey, policy))`, the signing key being the same chain as header
///   signing (``OSSSignerV4/signingKey(secret:day:region:product:)``). The policy must itself hold the
///   conditions `{"x-oss-signature-version": …}`, `{"x-oss-credential": …}`, `{"x-oss-date": …}` (and
///   `{"x-oss-security-token": …}` with STS), whose values are also sent as form fields: ``v4Fields(credentials:date:region:product:)``.
public enum OSSPostPolicySignature {
    /// The `policy` form field: Base64 of the policy document's UTF-8 bytes.
    public static func encodePolicy(_ document: String) -> String {
        var document = document
        return document.withUTF8 { OSSBase64.encode(UnsafeRawBufferPointer($0)) }
    }

    /// The V1 `Signature` form field for the Base64 `policy`.
    public static func v1(policy: String, secret: String) -> String {
        OSSSignerV1.signature(stringToSign: policy, secret: secret)
    }

    /// The V4 `x-oss-signature` form field for the Base64 `policy`; `day` is `YYYYMMDD` (the first 8 characters of
    /// the `x-oss-date` field).
    public static func v4(policy: String, secret: String, day: String, region: String, product: String = "oss") -> String {
        OSSSignerV4.signature(stringToSign: policy, secret: secret, day: day, region: region, product: product)
    }

    /// The fields a V4 POST form sends, each of which its policy must also require with an exact condition.
    public struct V4Fields: Sendable, Hashable {
        /// `x-oss-signature-version`: `OSS4-HMAC-SHA256`.
        public var signatureVersion: String
        /// `x-oss-credential`: `<AccessKeyId>/<YYYYMMDD>/<region>/<product>/aliyun_v4_request`.
        public var credential: String
        /// `x-oss-date`: `20240115T083045Z`.
        public var date: String
        /// `x-oss-security-token`, with STS credentials.
        public var securityToken: String?

        /// The fields as `(name, value)` pairs, in the order the official samples list them.
        public var pairs: [(String, String)] {
            var pairs = [
                ("x-oss-signature-version", signatureVersion), ("x-oss-credential", credential), ("x-oss-date", date),
            ]
            if let securityToken { pairs.append(("x-oss-security-token", securityToken)) }
            return pairs
        }
    }

    /// The V4 fields for `credentials` signing at `date`.
    public static func v4Fields(credentials: OSSCredentials, date: Date, region: String, product: String = "oss")
        -> V4Fields
    {
        let dateTime = OSSDateFormat.iso8601Basic(date)
        let scope = OSSSignerV4.scope(day: String(dateTime.prefix(8)), region: region, product: product)
        let token = credentials.securityToken.flatMap { $0.isEmpty ? nil : $0 }
        return V4Fields(
            signatureVersion: OSSSignerV4.algorithm, credential: "\(credentials.accessKeyId)/\(scope)", date: dateTime,
            securityToken: token)
    }
}
