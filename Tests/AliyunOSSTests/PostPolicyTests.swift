import AliyunOSS
import Foundation
import Testing

/// The SDK's POST policy documents and form fields against Tests/OSSSigningTests/Fixtures/post-policy-vectors.json,
/// written by Tests/python/post_policy_vectors.py (json.dumps and alibabacloud-oss-v2's signing primitives).
@Suite("POST policy forms are byte-identical to the Python vectors")
struct PostPolicyTests {
    static var fixture: [String: Any] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("OSSSigningTests/Fixtures/post-policy-vectors.json")
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }
    static let signTime = Date(timeIntervalSince1970: 1_705_307_445)
    static let expiration = Date(timeIntervalSince1970: 1_705_307_445 + 3600)

    /// The conditions of each vector, as a user of the SDK writes them (post_policy_vectors.py's POLICIES).
    static func conditions(_ name: String) -> [OSSPostPolicy.Condition] {
        switch name {
        case "key_prefix_and_size":
            return [.keyPrefix("users/alice/"), .contentLengthRange(1...10_485_760)]
        case "every_condition":
            return [
                .key("users/alice/photo 1.jpg"), .contentLengthRange(0...1_048_576), .contentType(.equals("image/jpeg")),
                .contentType(.startsWith("image/")), .contentType(.oneOf(["image/jpeg", "image/png"])),
                .contentType(.noneOf(["text/html", "application/x-msdownload"])), .successActionStatus(201),
                .successActionRedirect(.startsWith("https://app.example.com/done")), .metadata("owner", .equals("alice")),
                .exact("callback", "eyJjYWxsYmFja1VybCI6Imh0dHBzOi8vYXBwLmV4YW1wbGUuY29tL2NiIn0="),
                .exact("x:user", "alice"),
            ]
        default:
            return [
                .key("文件/ünïcödé \"quoted\" back\\slash\ttab/x.txt"),
                .metadata("note", .startsWith("line1\nline2 / slash")),
            ]
        }
    }

    static func client(_ version: OSSSignatureVersion, sts: Bool) throws -> OSSClient {
        let inputs = fixture["inputs"] as! [String: Any]
        let credentials = OSSCredentials(
            accessKeyId: inputs["access_key_id"] as! String, accessKeySecret: inputs["access_key_secret"] as! String,
            securityToken: sts ? inputs["security_token"] as? String : nil)
        return try OSSClient(
            endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: credentials.provider,
            configuration: OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: version))
    }

    @Test func everyVectorIsReproduced() async throws {
        let vectors = Self.fixture["vectors"] as! [[String: Any]]
        #expect(vectors.count == 6)
        for vector in vectors {
            let name = vector["name"] as! String
            let sts = vector["mode"] as! String == "sts"
            let policy = OSSPostPolicy(expiration: Self.expiration, conditions: Self.conditions(name))
            for (version, block) in [(OSSSignatureVersion.v1, "v1"), (.v4, "v4")] {
                let expected = vector[block] as! [String: Any]
                let client = try Self.client(version, sts: sts)
                let form = try await client.postPolicyForm(bucket: "examplebucket", policy: policy, signedAt: Self.signTime)
                try await client.shutdown()
                let label = "\(name)/\(block)/\(sts ? "sts" : "plain")"
                #expect(form.policyDocument == expected["document"] as? String, "\(label)")
                #expect(form[field: "policy"] == expected["policy"] as? String, "\(label)")
                if version == .v1 {
                    #expect(form[field: "Signature"] == expected["signature"] as? String, "\(label)")
                    #expect(form[field: "OSSAccessKeyId"] == "LTAI5tExampleAccessKeyId")
                    #expect(form[field: "x-oss-security-token"] == (sts ? "CAIS+Example/STS=Token" : nil))
                } else {
                    #expect(form[field: "x-oss-signature"] == expected["signature"] as? String, "\(label)")
                    for (field, value) in expected["fields"] as! [String: String] {
                        #expect(form[field: field] == value, "\(label) \(field)")
                    }
                }
                #expect(form.url == "https://examplebucket.oss-cn-hangzhou.aliyuncs.com/")
            }
        }
    }

    @Test func theFormCarriesTheExactValuesAndLeavesPrefixesOpen() async throws {
        let client = try Self.client(.v4, sts: false)
        let policy = OSSPostPolicy(expiration: Self.expiration, conditions: Self.conditions("every_condition"))
        let form = try await client.postPolicyForm(bucket: "examplebucket", policy: policy, signedAt: Self.signTime)
        #expect(form[field: "key"] == "users/alice/photo 1.jpg")
        #expect(form[field: "success_action_status"] == "201")
        #expect(form[field: "x-oss-meta-owner"] == "alice")
        #expect(form[field: "x:user"] == "alice")
        #expect(form[field: "content-type"] == "image/jpeg")
        #expect(form[field: "success_action_redirect"] == nil)  // only a prefix: the browser chooses
        #expect(form[field: "bucket"] == nil)  // a condition, not a field
        #expect(form.fields.last?.name == "x-oss-signature")
        try await client.shutdown()
    }

    @Test func expiredPoliciesAndNegativeRangesAreRefused() async throws {
        let client = try Self.client(.v1, sts: false)
        let past = OSSPostPolicy(expiration: Self.signTime.addingTimeInterval(-1))
        let expired = await thrownClientError {
            _ = try await client.postPolicyForm(bucket: "examplebucket", policy: past, signedAt: Self.signTime)
        }
        #expect(expired?.code == .invalidArgument)
        let negative = OSSPostPolicy(expiration: Self.expiration, conditions: [.contentLengthRange(-1...5)])
        let range = await thrownClientError {
            _ = try await client.postPolicyForm(bucket: "examplebucket", policy: negative, signedAt: Self.signTime)
        }
        #expect(range?.code == .invalidArgument)
        let badBucket = await thrownClientError {
            _ = try await client.postPolicyForm(bucket: "Bad_Bucket", policy: OSSPostPolicy(expiration: Self.expiration))
        }
        #expect(badBucket?.code == .invalidArgument)
        try await client.shutdown()
    }

    @Test func callbacksBecomeTheCallbackFieldAndItsVariables() async throws {
        var policy = OSSPostPolicy(expiration: Self.expiration, conditions: [.keyPrefix("u/")])
        try policy.addCallback(
            OSSCallback(url: "http://127.0.0.1:9/cb", body: "object=${object}&user=${x:user}", variables: ["x:user": "bob"]))
        let client = try Self.client(.v1, sts: false)
        let form = try await client.postPolicyForm(bucket: "examplebucket", policy: policy, signedAt: Self.signTime)
        let callback = try #require(form[field: "callback"])
        let decoded = try #require(Data(base64Encoded: callback).flatMap { String(data: $0, encoding: .utf8) })
        #expect(decoded.contains("http://127.0.0.1:9/cb"))
        #expect(form[field: "x:user"] == "bob")
        #expect(form.policyDocument.contains(#"{"callback":"\#(callback)"}"#))
        try await client.shutdown()
    }
}
