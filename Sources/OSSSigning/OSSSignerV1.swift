import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// OSS signature V1: `Authorization: OSS <AK>:base64(HMAC-SHA1(SK, StringToSign))`, and V1 presigned URLs.
public struct OSSSignerV1: OSSRequestSigner {
    public init() {}

    public func sign(_ request: inout OSSSignableRequest, credentials: OSSCredentials, date: Date)
        throws(OSSSigningError)
    {
        try credentials.validate()
        if let token = credentials.securityToken, !token.isEmpty {
            request[header: "x-oss-security-token"] = token
        }
        if request[header: "x-oss-date"] == nil {
            request[header: "date"] = OSSDateFormat.rfc1123(date)
        }
        let dateLine = request[header: "x-oss-date"] ?? request[header: "date"] ?? ""
        let signature = Self.signature(
            stringToSign: Self.stringToSignBytes(for: request, dateLine: dateLine), secret: credentials.accessKeySecret)
        var authorization = "OSS "
        authorization.reserveCapacity(5 + credentials.accessKeyId.utf8.count + signature.utf8.count)
        authorization += credentials.accessKeyId
        authorization += ":"
        authorization += signature
        request[header: "authorization"] = authorization
    }

    public func presign(
        _ request: inout OSSSignableRequest, credentials: OSSCredentials, date: Date, expiresIn: Int64
    ) throws(OSSSigningError) {
        try credentials.validate()
        guard expiresIn > 0 else {
            throw OSSSigningError(.invalidExpiration, "a presigned URL must expire after a positive number of seconds")
        }
        let expires = Int64(date.timeIntervalSince1970.rounded(.down)) + expiresIn
        if let token = credentials.securityToken, !token.isEmpty {
            request.query["security-token"] = token
        }
        let stringToSign = Self.stringToSign(for: request, dateLine: String(expires))
        request.query["OSSAccessKeyId"] = credentials.accessKeyId
        request.query["Expires"] = String(expires)
        request.query["Signature"] = Self.signature(stringToSign: stringToSign, secret: credentials.accessKeySecret)
    }

    // MARK: - The canonical pieces, public so a server can verify with the same code.

    /// `VERB\nContent-MD5\nContent-Type\nDate\nCanonicalizedOSSHeaders + CanonicalizedResource`.
    /// `dateLine` is the `x-oss-date` or `Date` header in header mode, the absolute `Expires` when presigning.
    public static func stringToSign(for request: OSSSignableRequest, dateLine: String) -> String {
        String(decoding: stringToSignBytes(for: request, dateLine: dateLine), as: UTF8.self)
    }

    /// The UTF-8 bytes of ``stringToSign(for:dateLine:)``, built in one buffer (what ``sign(_:credentials:date:)``
    /// hashes).
    static func stringToSignBytes(for request: OSSSignableRequest, dateLine: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(384)
        out.append(contentsOf: request.method.utf8)
        out.append(0x0A)
        if let md5 = request.headers["content-md5"] { out.append(contentsOf: md5.utf8) }
        out.append(0x0A)
        if let type = request.headers["content-type"] { out.append(contentsOf: type.utf8) }
        out.append(0x0A)
        out.append(contentsOf: dateLine.utf8)
        out.append(0x0A)
        appendCanonicalizedOSSHeaders(request.headers, to: &out)
        appendCanonicalizedResource(bucket: request.bucket, key: request.key, query: request.query, to: &out)
        return out
    }

    /// Every `x-oss-*` header as `name:value\n`, sorted by lower-cased name; values verbatim.
    public static func canonicalizedOSSHeaders(_ headers: [String: String]) -> String {
        var out: [UInt8] = []
        appendCanonicalizedOSSHeaders(headers, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendCanonicalizedOSSHeaders(_ headers: [String: String], to out: inout [UInt8]) {
        var selected: [(name: String, value: String)] = []
        for (name, value) in headers {
            let lower = name.lowercasedHeaderName
            if lower.utf8.starts(with: "x-oss-".utf8) { selected.append((lower, value)) }
        }
        if selected.isEmpty { return }
        if selected.count > 1 { selected.sort { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) } }
        for (name, value) in selected {
            out.append(contentsOf: name.utf8)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: value.utf8)
            out.append(0x0A)
        }
    }

    /// `/`, `/bucket/` or `/bucket/key` (decoded, not URL-encoded), then `?` and the sorted sub-resources.
    public static func canonicalizedResource(bucket: String?, key: String?, query: [String: String]) -> String {
        var out: [UInt8] = []
        appendCanonicalizedResource(bucket: bucket, key: key, query: query, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func appendCanonicalizedResource(
        bucket: String?, key: String?, query: [String: String], to out: inout [UInt8]
    ) {
        out.append(UInt8(ascii: "/"))
        if let bucket, !bucket.isEmpty {
            out.append(contentsOf: bucket.utf8)
            out.append(UInt8(ascii: "/"))
            if let key { out.append(contentsOf: key.utf8) }
        }
        if query.isEmpty { return }
        var names: [String] = []
        for name in query.keys where subresources.contains(name) {
            names.append(name)
        }
        if names.isEmpty { return }
        if names.count > 1 { names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) } }
        out.append(UInt8(ascii: "?"))
        for (index, name) in names.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: name.utf8)
            if let value = query[name], !value.isEmpty {
                out.append(UInt8(ascii: "="))
                out.append(contentsOf: value.utf8)
            }
        }
    }

    /// `base64(HMAC-SHA1(secret, stringToSign))`.
    public static func signature(stringToSign: String, secret: String) -> String {
        signature(stringToSign: Array(stringToSign.utf8), secret: secret)
    }

    static func signature(stringToSign: [UInt8], secret: String) -> String {
        var secret = secret
        let mac = secret.withUTF8 { key in
            stringToSign.withUnsafeBytes { bytes in
                OSSHMAC.authenticationCode(Insecure.SHA1.self, key: UnsafeRawBufferPointer(key), message: bytes)
            }
        }
        return mac.withUnsafeBytes { OSSBase64.encode($0) }
    }

    /// The query parameters V1 signs (oss2's list plus `cloudboxes`); every other parameter is ignored.
    public static let subresources: Set<String> = [
        "accessPoint", "accessPointPolicy", "acl", "append", "asyncFetch", "bucketArchiveDirectRead", "bucketInfo",
        "callback", "callback-var", "cloudboxes", "cname", "comp", "continuation-token", "cors", "delete",
        "encryption", "endTime", "group", "httpsConfig", "inventory", "inventoryId", "lifecycle", "link", "live",
        "location", "logging", "metaQuery", "objectInfo", "objectMeta", "partNumber", "policy", "position",
        "publicAccessBlock", "qos", "qosInfo", "qosRequester", "redundancyTransition", "referer", "regionList",
        "replication", "replicationLocation", "replicationProgress", "requestPayment", "requesterQosInfo",
        "resourceGroup", "resourcePool", "resourcePoolBuckets", "resourcePoolInfo", "response-cache-control",
        "response-content-disposition", "response-content-encoding", "response-content-language",
        "response-content-type", "response-expires", "restore", "security-token", "sequential", "startTime", "stat",
        "status", "style", "styleName", "symlink", "tagging", "transferAcceleration", "uploadId", "uploads",
        "versionId", "versioning", "versions", "vod", "website", "worm", "wormExtend", "wormId",
        "x-oss-ac-forward-allow", "x-oss-ac-source-ip", "x-oss-ac-subnet-mask", "x-oss-ac-vpc-id",
        "x-oss-access-point-name", "x-oss-async-process", "x-oss-process", "x-oss-redundancy-transition-taskid",
        "x-oss-request-payer", "x-oss-target-redundancy-type", "x-oss-traffic-limit",
        "x-oss-write-get-object-response",
    ]
}
