import Crypto
import Foundation
import OSSSigning
import Testing

/// Every example in vectors.json, produced by oss2 2.19.1 and alibabacloud-oss-v2 1.4.1, reproduced byte for byte.
@Suite("Official SDK signing vectors")
struct OfficialVectorTests {
    @Test func vectorsAreLoaded() {
        // 11 cases × 2 modes × 2 SDKs × 4 variants, less the presigned forms the SDKs do not offer.
        #expect(Vectors.examples.count == 148)
    }

    /// The canonical strings, rebuilt from exactly what the SDK put on the wire, equal the SDK's, and so do the signatures.
    @Test(arguments: Vectors.examples)
    func canonicalStringsAndSignatures(_ e: Vectors.Example) throws {
        switch e.variant {
        case "v1_header", "v1_presign":
            var query = e.userQuery
            if e.variant == "v1_presign", let token = e.signedQuery["security-token"] { query["security-token"] = token }
            let request = OSSSignableRequest(
                method: e.method, bucket: e.bucket, key: e.key, query: query, headers: e.wireHeaders)
            let dateLine =
                e.variant == "v1_presign"
                ? try #require(e.signedQuery["Expires"]) : (e.wireHeaders["x-oss-date"] ?? e.wireHeaders["date"]!)
            let toSign = OSSSignerV1.stringToSign(for: request, dateLine: dateLine)
            #expect(toSign == e.stringToSign)
            #expect(OSSSignerV1.signature(stringToSign: toSign, secret: e.credentials.accessKeySecret) == e.signature)
        default:
            let query = e.variant == "v4_presign" ? e.signedQuery : e.userQuery
            let request = OSSSignableRequest(
                method: e.method, bucket: e.bucket, key: e.key, query: query, headers: e.wireHeaders)
            let canonical = OSSSignerV4.canonicalRequest(
                for: request, additionalHeaders: [], payloadHash: OSSSignerV4.unsignedPayload)
            #expect(canonical == e.canonicalRequest)
            let toSign = OSSSignerV4.stringToSign(
                canonicalRequest: canonical, dateTime: "20240115T083045Z",
                scope: OSSSignerV4.scope(day: "20240115", region: "cn-hangzhou"))
            #expect(toSign == e.stringToSign)
            let signature = OSSSignerV4.signature(
                stringToSign: toSign, secret: e.credentials.accessKeySecret, day: "20240115", region: "cn-hangzhou")
            #expect(signature == e.signature)
        }
    }

    /// Signing from the caller's inputs alone (the signer adds date, token and auth itself) gives the SDK's signature.
    /// v2 sends the V1 STS token in an unsigned `security-token` header; we follow oss2 (signed `x-oss-security-token`),
    /// so that one combination is compared against oss2 only.
    @Test(arguments: Vectors.examples.filter { !($0.sdk == "v2" && $0.mode == "sts" && $0.variant == "v1_header") })
    func endToEndSigning(_ e: Vectors.Example) throws {
        var request = OSSSignableRequest(
            method: e.method, bucket: e.bucket, key: e.key, query: e.userQuery, headers: e.userHeaders)
        let signer: any OSSRequestSigner = e.variant.hasPrefix("v1") ? OSSSignerV1() : OSSSignerV4(region: "cn-hangzhou")
        if e.variant.hasSuffix("presign") {
            try signer.presign(&request, credentials: e.credentials, date: Vectors.date, expiresIn: 3600)
            let produced = request.query["Signature"] ?? request.query["x-oss-signature"]
            #expect(produced == e.signature)
            // Every query parameter the SDK put on the URL is on ours, with the same value.
            for (name, value) in e.signedQuery {
                #expect(request.query[name] == value, "query \(name)")
            }
        } else {
            try signer.sign(&request, credentials: e.credentials, date: Vectors.date)
            let authorization = try #require(request[header: "authorization"])
            #expect(Vectors.signature(fromAuthorization: authorization) == e.signature)
            #expect(authorization.hasPrefix(e.variant == "v1_header" ? "OSS LTAI5tExampleAccessKeyId:" : "OSS4-HMAC-SHA256 Credential=LTAI5tExampleAccessKeyId/20240115/cn-hangzhou/oss/aliyun_v4_request,"))
        }
    }

    @Test func v4SigningKey() {
        let key = OSSSignerV4.signingKey(secret: Vectors.plain.accessKeySecret, day: "20240115", region: "cn-hangzhou")
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == "f04bebf3b5c378d430f58742cbebddcef0cfc4632bce7849eea286026b0f4ef6")
    }

    @Test func v4AdditionalHeadersInHeaderMode() throws {
        let vectors = Vectors.load()["v4_additional_headers"] as! [String: [String: Any]]
        let v = vectors["v2_v4_header_additional_host_range"]!
        var request = OSSSignableRequest(
            method: "GET", bucket: "examplebucket", key: "docs/readme.txt",
            headers: ["Host": "examplebucket.oss-cn-hangzhou.aliyuncs.com", "Range": "bytes=0-9"])
        try OSSSignerV4(region: "cn-hangzhou", additionalHeaders: ["range", "host"])
            .sign(&request, credentials: Vectors.plain, date: Vectors.date)
        let authorization = try #require(request[header: "authorization"])
        #expect(authorization == v["authorization"] as? String)
    }

    @Test func v4AdditionalHeadersInPresign() throws {
        let vectors = Vectors.load()["v4_additional_headers"] as! [String: [String: Any]]
        let v = vectors["oss2_v4_presign_additional_host_range"]!
        var request = OSSSignableRequest(
            method: "GET", bucket: "examplebucket", key: "docs/readme.txt",
            headers: ["Host": "examplebucket.oss-cn-hangzhou.aliyuncs.com", "Range": "bytes=0-9"])
        try OSSSignerV4(region: "cn-hangzhou", additionalHeaders: ["host", "range"])
            .presign(&request, credentials: Vectors.plain, date: Vectors.date, expiresIn: 3600)
        #expect(request.query["x-oss-signature"] == Vectors.query(ofURL: v["url"] as! String)["x-oss-signature"])
        #expect(request.query["x-oss-additional-headers"] == "host;range")
    }

    @Test func addressingDoesNotChangeTheSignature() throws {
        // The canonical URI/resource always starts with /bucket/, whatever the host (virtual-host, IP, localhost,
        // path-style, CNAME): every addressing example in the vectors carries the same signature.
        var compared = 0
        for entry in Vectors.load()["addressing"] as! [[String: Any]] {
            for name in ["oss2_v4_authorization", "v2_v4_authorization"] {
                guard let auth = entry[name] as? String else { continue }
                var request = OSSSignableRequest(method: "GET", bucket: "examplebucket", key: "dir/a b+c.txt")
                try OSSSignerV4(region: "cn-hangzhou").sign(&request, credentials: Vectors.plain, date: Vectors.date)
                let ours = try #require(request[header: "authorization"])
                #expect(Vectors.signature(fromAuthorization: ours) == Vectors.signature(fromAuthorization: auth))
                compared += 1
            }
            if let auth = entry["oss2_v1_authorization"] as? String {
                var request = OSSSignableRequest(method: "GET", bucket: "examplebucket", key: "dir/a b+c.txt")
                try OSSSignerV1().sign(&request, credentials: Vectors.plain, date: Vectors.date)
                #expect(request[header: "authorization"] == auth)
                compared += 1
            }
        }
        #expect(compared == 8)
    }

    /// Alibaba Cloud's documented RPC signature example (ECS DescribeRegions, secret `testsecret`), which the STS
    /// client and the local STS stand-in both sign and check with; the POST variant differs only in the verb.
    @Test("RPC signature: the documented DescribeRegions example")
    func rpcSignatureDocumentedExample() {
        let parameters = [
            "Timestamp": "2016-02-23T12:46:24Z", "Format": "XML", "AccessKeyId": "testid", "Action": "DescribeRegions",
            "SignatureMethod": "HMAC-SHA1", "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
            "Version": "2014-05-26", "SignatureVersion": "1.0",
        ]
        #expect(
            OSSRPCSignature.stringToSign(parameters, method: "GET")
                == "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML%26SignatureMethod%3DHMAC-SHA1"
                + "%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf%26SignatureVersion%3D1.0"
                + "%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26")
        #expect(OSSRPCSignature.signature(parameters, method: "GET", secret: "testsecret") == "OLeaidS1JvxuMvnyHOwuJ+uX5qY=")
        // `Signature` itself is never signed; a space is %20 (encoded again: %2520), `*` is %2A, `~` stays.
        var signed = parameters
        signed["Signature"] = "OLeaidS1JvxuMvnyHOwuJ+uX5qY="
        #expect(OSSRPCSignature.signature(signed, method: "GET", secret: "testsecret") == "OLeaidS1JvxuMvnyHOwuJ+uX5qY=")
        #expect(OSSRPCSignature.stringToSign(["a b": "*~"], method: "POST") == "POST&%2F&a%2520b%3D%252A~")
    }
}
