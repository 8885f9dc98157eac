import Foundation
import OSSSigning

/// Loads ../shared/reference/vectors.json (copied as a fixture): signatures produced by oss2 and alibabacloud-oss-v2.
enum Vectors {
    static func load() -> [String: Any] {
        let url = Bundle.module.url(forResource: "vectors", withExtension: "json", subdirectory: "Fixtures")!
        let data = try! Data(contentsOf: url)
        return try! JSONSerialization.jsonObject(with: data) as! [String: Any]
    }

    static let date = Date(timeIntervalSince1970: 1_705_307_445)
    static let plain = OSSCredentials(
        accessKeyId: "LTAI5tExampleAccessKeyId", accessKeySecret: "ExampleAccessKeySecret0123456789")
    static let sts = OSSCredentials(
        accessKeyId: "LTAI5tExampleAccessKeyId", accessKeySecret: "ExampleAccessKeySecret0123456789",
        securityToken: "CAIS+Example/STS=Token")

    /// One signing example from the vectors: which SDK, which mode, the inputs, and what the SDK produced.
    struct Example: CustomStringConvertible, Sendable {
        var caseName: String
        var mode: String  // plain | sts
        var sdk: String  // oss2 | v2
        var variant: String  // v1_header | v1_presign | v4_header | v4_presign
        var method: String
        var bucket: String?
        var key: String?
        /// Query parameters the caller supplied (decoded), without any authentication parameters.
        var userQuery: [String: String]
        /// Every query parameter on the signed URL except the signature (presign only).
        var signedQuery: [String: String]
        /// Headers the caller supplied (no date, token or authorization headers).
        var userHeaders: [String: String]
        /// Headers exactly as sent on the wire, minus Authorization.
        var wireHeaders: [String: String]
        var stringToSign: String
        var canonicalRequest: String?
        var signature: String

        var description: String { "\(caseName)/\(mode)/\(sdk)/\(variant)" }
        var credentials: OSSCredentials { mode == "sts" ? Vectors.sts : Vectors.plain }
    }

    static let authQueryNames: Set<String> = [
        "OSSAccessKeyId", "Expires", "Signature", "security-token", "x-oss-signature-version", "x-oss-credential",
        "x-oss-date", "x-oss-expires", "x-oss-signature", "x-oss-security-token", "x-oss-additional-headers",
    ]
    static let authHeaderNames: Set<String> = [
        "authorization", "date", "x-oss-date", "x-oss-content-sha256", "x-oss-security-token", "security-token",
    ]

    static func query(ofURL url: String) -> [String: String] {
        guard let q = url.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
        return OSSPercentEncoding.parseQuery(q) ?? [:]
    }

    static func signature(fromAuthorization auth: String) -> String {
        if auth.hasPrefix("OSS4-HMAC-SHA256") {
            let piece = auth.components(separatedBy: "Signature=")[1]
            return String(piece.prefix { $0 != "," && $0 != " " })
        }
        return String(auth.split(separator: ":").last!)
    }

    static let examples: [Example] = {
        var out: [Example] = []
        for c in load()["cases"] as! [[String: Any]] {
            let name = c["name"] as! String
            let rawKey = c["key"] as? String ?? ""
            let bucket: String? = name == "list_buckets" ? nil : c["bucket"] as? String
            let key: String? = rawKey.isEmpty ? nil : rawKey
            for mode in ["plain", "sts"] {
                let block = c[mode] as! [String: Any]
                for sdk in ["oss2", "v2"] {
                    let variants = block[sdk] as! [String: Any]
                    for (variant, raw) in variants {
                        // Some requests have no presigned form in an SDK (null), and `cross_check` is not a variant.
                        guard variant.hasPrefix("v1_") || variant.hasPrefix("v4_"), let v = raw as? [String: Any] else {
                            continue
                        }
                        let isPresign = variant.hasSuffix("presign")
                        let url = (v["url"] as? String) ?? (v["wire_url"] as? String) ?? ""
                        var userQuery: [String: String]
                        if let params = v["params"] as? [String: String] {
                            userQuery = params
                        } else {
                            userQuery = query(ofURL: url).filter { !authQueryNames.contains($0.key) }
                        }
                        var signedQuery = query(ofURL: url)
                        signedQuery["x-oss-signature"] = nil
                        signedQuery["Signature"] = nil
                        let must = (v["headers_client_must_send"] ?? v["signed_headers_client_must_send"]) as? [String: String]
                        var wire: [String: String] = [:]
                        for (k, value) in (isPresign ? must ?? [:] : v["headers"] as! [String: String]) {
                            if k.lowercased() != "authorization" { wire[k.lowercased()] = value }
                        }
                        let user = wire.filter { !authHeaderNames.contains($0.key) }
                        let signature: String
                        if isPresign {
                            let q = query(ofURL: url)
                            signature = q["Signature"] ?? q["x-oss-signature"]!
                        } else {
                            signature = Vectors.signature(fromAuthorization: v["authorization"] as! String)
                        }
                        if !isPresign { userQuery = userQuery.filter { !authQueryNames.contains($0.key) } }
                        out.append(
                            Example(
                                caseName: name, mode: mode, sdk: sdk, variant: variant,
                                method: v["method"] as! String, bucket: bucket, key: key, userQuery: userQuery,
                                signedQuery: signedQuery, userHeaders: user, wireHeaders: wire,
                                stringToSign: v["string_to_sign"] as! String,
                                canonicalRequest: v["canonical_request"] as? String, signature: signature))
                    }
                }
            }
        }
        return out.sorted { $0.description < $1.description }
    }()
}
