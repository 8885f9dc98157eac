import Foundation
import OSSSigning
import Testing

/// PostObject policy signatures against Fixtures/post-policy-vectors.json, which Tests/python/post_policy_vectors.py
/// computes with alibabacloud-oss-v2's own HMAC primitives (V1 and V4, with and without an STS token).
@Suite("PostObject policy signatures match the official SDK's primitives")
struct PostPolicyVectorTests {
    struct Vector: Sendable, CustomStringConvertible {
        var name: String
        var mode: String
        var v1Document: String, v1Policy: String, v1Signature: String
        var v4Document: String, v4Policy: String, v4Signature: String
        var v4Fields: [String: String]
        var description: String { "\(name)/\(mode)" }
    }

    static func load() -> [String: Any] {
        let url = Bundle.module.url(forResource: "post-policy-vectors", withExtension: "json", subdirectory: "Fixtures")!
        return try! JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [String: Any]
    }

    static let vectors: [Vector] = (load()["vectors"] as! [[String: Any]]).map { entry in
        let v1 = entry["v1"] as! [String: Any]
        let v4 = entry["v4"] as! [String: Any]
        return Vector(
            name: entry["name"] as! String, mode: entry["mode"] as! String,
            v1Document: v1["document"] as! String, v1Policy: v1["policy"] as! String,
            v1Signature: v1["signature"] as! String, v4Document: v4["document"] as! String,
            v4Policy: v4["policy"] as! String, v4Signature: v4["signature"] as! String,
            v4Fields: v4["fields"] as! [String: String])
    }

    @Test func thereAreVectorsForEveryMode() {
        #expect(Self.vectors.count == 6)
        #expect(Set(Self.vectors.map(\.mode)) == ["plain", "sts"])
    }

    @Test(arguments: vectors) func v1(_ vector: Vector) {
        #expect(OSSPostPolicySignature.encodePolicy(vector.v1Document) == vector.v1Policy)
        #expect(OSSPostPolicySignature.v1(policy: vector.v1Policy, secret: Vectors.plain.accessKeySecret) == vector.v1Signature)
    }

    @Test(arguments: vectors) func v4(_ vector: Vector) {
        let credentials = vector.mode == "sts" ? Vectors.sts : Vectors.plain
        let fields = OSSPostPolicySignature.v4Fields(credentials: credentials, date: Vectors.date, region: "cn-hangzhou")
        #expect(Dictionary(uniqueKeysWithValues: fields.pairs) == vector.v4Fields)
        #expect(OSSPostPolicySignature.encodePolicy(vector.v4Document) == vector.v4Policy)
        let signature = OSSPostPolicySignature.v4(
            policy: vector.v4Policy, secret: credentials.accessKeySecret, day: String(fields.date.prefix(8)),
            region: "cn-hangzhou")
        #expect(signature == vector.v4Signature)
    }
}
