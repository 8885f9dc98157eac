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
        let stringToSign = Self.stringToSign(for: request, dateLine: dateLine)
        let signature = Self.signature(stringToSign: stringToSign, secret: credentials.accessKeySecret)
        request[header: "authorization"] = "OSS \(credentials.accessKeyId):\(signature)"
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
        var s = ""
        s.reserveCapacity(256)
        s += request.method
        s += "\n"
        s += request[header: "content-md5"] ?? ""
        s += "\n"
        s += request[header: "content-type"] ?? ""
        s += "\n"
        s += dateLine
        s += "\n"
        s += canonicalizedOSSHeaders(request.headers)
        s += canonicalizedResource(bucket: request.bucket, key: request.key, query: request.query)
        return s
    }

    /// Every `x-oss-*` header as `name:value\n`, sorted by lower-cased name; values verbatim.
    public static func canonicalizedOSSHeaders(_ headers: [String: String]) -> String {
        var selected: [(String, String)] = []
        for (name, value) in headers {
            let lower = name.lowercasedHeaderName
            if lower.hasPrefix("x-oss-") { selected.append((lower, value)) }
        }
        if selected.isEmpty { return "" }
        selected.sort { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
        var s = ""
        for (name, value) in selected {
            s += name
            s += ":"
            s += value
            s += "\n"
        }
        return s
    }

    /// `/`, `/bucket/` or `/bucket/key` (decoded, not URL-encoded), then `?` and the sorted sub-resources.
    public static func canonicalizedResource(bucket: String?, key: String?, query: [String: String]) -> String {
        var s = "/"
        if let bucket, !bucket.isEmpty {
            s += bucket
            s += "/"
            if let key { s += key }
        }
        var names: [String] = []
        for name in query.keys where subresources.contains(name) {
            names.append(name)
        }
        if !names.isEmpty {
            names.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            s += "?"
            var first = true
            for name in names {
                if !first { s += "&" }
                first = false
                s += name
                if let value = query[name], !value.isEmpty {
                    s += "="
                    s += value
                }
            }
        }
        return s
    }

    /// `base64(HMAC-SHA1(secret, stringToSign))`.
    public static func signature(stringToSign: String, secret: String) -> String {
        var message = stringToSign
        let mac = message.withUTF8 { bytes in
            HMAC<Insecure.SHA1>.authenticationCode(
                for: UnsafeRawBufferPointer(bytes), using: SymmetricKey(data: Array(secret.utf8)))
        }
        return mac.withUnsafeBytes { Data($0).base64EncodedString() }
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
