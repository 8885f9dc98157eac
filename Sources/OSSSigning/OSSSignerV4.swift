import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// OSS signature V4 (`OSS4-HMAC-SHA256`): header authentication and presigned URLs.
public struct OSSSignerV4: OSSRequestSigner {
    public static let algorithm = "OSS4-HMAC-SHA256"
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// The longest a V4 presigned URL may live: 7 days.
    public static let maximumPresignExpiry: Int64 = 604_800

    /// The bare region id, e.g. `cn-hangzhou` (not `oss-cn-hangzhou`).
    public var region: String
    /// `oss`, or `oss-cloudbox` for CloudBox.
    public var product: String
    /// Extra header names (lower-cased) to sign when present, e.g. `host`, `range`.
    public var additionalHeaders: [String]

    public init(region: String, product: String = "oss", additionalHeaders: [String] = []) {
        self.region = region
        self.product = product
        self.additionalHeaders = additionalHeaders.map { $0.lowercased() }
    }

    public func sign(_ request: inout OSSSignableRequest, credentials: OSSCredentials, date: Date)
        throws(OSSSigningError)
    {
        try credentials.validate()
        let pending = try prepareSigning(
            &request, accessKeyId: credentials.accessKeyId, securityToken: credentials.securityToken, date: date)
        pending.apply(signature(pending, secret: credentials.accessKeySecret, date: date), to: &request)
    }

    public func presign(
        _ request: inout OSSSignableRequest, credentials: OSSCredentials, date: Date, expiresIn: Int64
    ) throws(OSSSigningError) {
        try credentials.validate()
        let pending = try preparePresigning(
            &request, accessKeyId: credentials.accessKeyId, securityToken: credentials.securityToken, date: date,
            expiresIn: expiresIn)
        pending.apply(signature(pending, secret: credentials.accessKeySecret, date: date), to: &request)
    }

    /// The signature of what `prepareSigning` / `preparePresigning` made ready at `date`.
    private func signature(_ pending: OSSPendingSignature, secret: String, date: Date) -> String {
        Self.signature(
            stringToSign: pending.stringToSign, secret: secret, day: String(OSSDateFormat.iso8601Basic(date).prefix(8)),
            region: region, product: product)
    }

    // MARK: - The canonical pieces, public so a server can verify with the same code.

    static func presentAdditionalHeaders(_ names: [String], in request: OSSSignableRequest) -> [String] {
        var present: [String] = []
        for name in names where !name.hasPrefix("x-oss-") && name != "content-type" && name != "content-md5" {
            if let value = request[header: name], !value.isEmpty, !present.contains(name) {
                present.append(name)
            }
        }
        return present.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// `<YYYYMMDD>/<region>/<product>/aliyun_v4_request`.
    public static func scope(day: String, region: String, product: String = "oss") -> String {
        "\(day)/\(region)/\(product)/aliyun_v4_request"
    }

    /// The canonical URI: `/bucket/key` percent-encoded with `/` kept.
    public static func canonicalURI(bucket: String?, key: String?) -> String {
        var path = "/"
        if let bucket, !bucket.isEmpty {
            path += bucket
            path += "/"
            if let key { path += key }
        }
        return OSSPercentEncoding.encode(path, keepSlash: true)
    }

    /// The canonical query: every parameter except `x-oss-signature`, encoded, sorted by encoded name.
    public static func canonicalQuery(_ query: [String: String]) -> String {
        var items: [(String, String)] = []
        items.reserveCapacity(query.count)
        for (name, value) in query where name != "x-oss-signature" {
            items.append((OSSPercentEncoding.encode(name), OSSPercentEncoding.encode(value)))
        }
        items.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        var s = ""
        var first = true
        for (name, value) in items {
            if !first { s += "&" }
            first = false
            s += name
            if !value.isEmpty {
                s += "="
                s += value
            }
        }
        return s
    }

    /// `METHOD\nURI\nQUERY\nHEADERS\n\nADDITIONAL\nPAYLOAD`.
    public static func canonicalRequest(
        for request: OSSSignableRequest, additionalHeaders: [String], payloadHash: String
    ) -> String {
        var headers: [(String, String)] = []
        for (name, value) in request.headers {
            if name.hasPrefix("x-oss-") || name == "content-type" || name == "content-md5"
                || additionalHeaders.contains(name)
            {
                headers.append((name, value))
            }
        }
        headers.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        var s = ""
        s.reserveCapacity(512)
        s += request.method
        s += "\n"
        s += canonicalURI(bucket: request.bucket, key: request.key)
        s += "\n"
        s += canonicalQuery(request.query)
        s += "\n"
        for (name, value) in headers {
            s += name
            s += ":"
            s += value
            s += "\n"
        }
        s += "\n"
        s += additionalHeaders.joined(separator: ";")
        s += "\n"
        s += payloadHash
        return s
    }

    /// `OSS4-HMAC-SHA256\n<dateTime>\n<scope>\nhex(SHA256(canonicalRequest))`.
    public static func stringToSign(canonicalRequest: String, dateTime: String, scope: String) -> String {
        var canonical = canonicalRequest
        let hash = canonical.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return "\(algorithm)\n\(dateTime)\n\(scope)\n\(hexString(hash))"
    }

    /// The signing key: HMAC chain over `aliyun_v4<SK>`, day, region, product, `aliyun_v4_request`.
    public static func signingKey(secret: String, day: String, region: String, product: String = "oss")
        -> SymmetricKey
    {
        SymmetricKey(data: signingKeyBytes(secret: secret, day: day, region: region, product: product))
    }

    /// The signing key's 32 bytes (the chain of ``signingKey(secret:day:region:product:)``).
    static func signingKeyBytes(secret: String, day: String, region: String, product: String) -> SHA256.Digest {
        var first = "aliyun_v4"
        first += secret
        var key = first.withUTF8 { OSSHMAC.authenticationCode(SHA256.self, key: UnsafeRawBufferPointer($0), message: day) }
        key = key.withUnsafeBytes { OSSHMAC.authenticationCode(SHA256.self, key: $0, message: region) }
        key = key.withUnsafeBytes { OSSHMAC.authenticationCode(SHA256.self, key: $0, message: product) }
        return key.withUnsafeBytes { OSSHMAC.authenticationCode(SHA256.self, key: $0, message: "aliyun_v4_request") }
    }

    /// Lower-case hex `HMAC-SHA256(signingKey, stringToSign)`.
    public static func signature(
        stringToSign: String, secret: String, day: String, region: String, product: String = "oss"
    ) -> String {
        let key = signingKeyBytes(secret: secret, day: day, region: region, product: product)
        return hexString(key.withUnsafeBytes { OSSHMAC.authenticationCode(SHA256.self, key: $0, message: stringToSign) })
    }

    static func hexString(_ digest: some Digest) -> String {
        digest.withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                for (index, b) in bytes.enumerated() {
                    out[2 * index] = hexDigit(b >> 4)
                    out[2 * index + 1] = hexDigit(b & 0x0F)
                }
                return bytes.count * 2
            }
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : 0x57 + nibble
    }
}
