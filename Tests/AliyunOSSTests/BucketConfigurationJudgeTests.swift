import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The official Python clients judge the bucket configuration families (Tests/python/judge_bucket_config.py):
/// alibabacloud-oss-v2 writes every family and the Swift SDK reads each back field for field; the Swift SDK writes
/// the same fixture and v2 and oss2 read it back. A mistake shared by the SDK and the server fails one direction.
@Suite("Bucket configuration judged by the official Python clients")
struct BucketConfigurationJudgeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let midnight = Date(timeIntervalSince1970: 1_705_276_800)

    // The fixture judge_bucket_config.py writes and expects.
    static let cors = BucketConfigurationSDKTests.cors
    static let lifecycle = OSSLifecycleConfiguration(rules: [
        OSSLifecycleRule(
            id: "tmp", prefix: "tmp/", status: .enabled, expiration: .init(days: 30),
            transitions: [.init(days: 7, storageClass: "IA"), .init(days: 14, storageClass: "Archive")],
            tags: [OSSTag(key: "kind", value: "scratch")],
            filter: .init(objectSizeGreaterThan: 1024, objectSizeLessThan: 1 << 30, not: [.init(prefix: "tmp/keep/")])),
        OSSLifecycleRule(
            id: "uploads", prefix: "", status: .disabled, abortMultipartUpload: .init(createdBeforeDate: midnight),
            noncurrentVersionExpiration: .init(noncurrentDays: 10),
            noncurrentVersionTransitions: [.init(noncurrentDays: 5, storageClass: "ColdArchive")]),
    ])
    static let referer = BucketConfigurationSDKTests.referer
    static let tags = [OSSTag(key: "team", value: "storage"), OSSTag(key: "cost-center", value: "42")]
    static let encryption = OSSBucketEncryption(.init(sseAlgorithm: "KMS", kmsDataEncryption: "SM4", kmsMasterKeyId: "key-1"))
    static let logging = OSSBucketLogging(loggingEnabled: .init(targetBucket: "judge-logs", targetPrefix: "cfg/"))
    static let website = BucketConfigurationSDKTests.website
    static func policy(_ bucket: String) -> String {
        #"{"Version":"1","Statement":[{"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],"Resource":["acs:oss:*:*:\#(bucket)/*"]}]}"#
    }

    @Test func officialClientsAndTheSDKReadEachOthersConfigurations() async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        try await withServerAndClient(extraBuckets: ["from-python", "from-swift", "judge-logs"]) { server, client in
            let (written, writeLog) = try await Self.run(python, phase: "write", bucket: "from-python", server: server)
            #expect(written == 0, "judge_bucket_config.py write failed:\n\(writeLog)")

            let b = "from-python"
            #expect(try await client.getBucketConfiguration(OSSCORSConfiguration.self, bucketName: b).configuration == Self.cors)
            #expect(try await client.getBucketConfiguration(OSSLifecycleConfiguration.self, bucketName: b).configuration == Self.lifecycle)
            #expect(try await client.getBucketConfiguration(OSSRefererConfiguration.self, bucketName: b).configuration == Self.referer)
            #expect(try await client.getBucketConfiguration(OSSBucketTagging.self, bucketName: b).configuration.tags == Self.tags)
            #expect(try await client.getBucketConfiguration(OSSBucketEncryption.self, bucketName: b).configuration == Self.encryption)
            #expect(try await client.getBucketConfiguration(OSSBucketLogging.self, bucketName: b).configuration == Self.logging)
            #expect(try await client.getBucketConfiguration(OSSWebsiteConfiguration.self, bucketName: b).configuration == Self.website)
            #expect(try await client.getBucketConfiguration(OSSRequestPaymentConfiguration.self, bucketName: b).configuration.payer == "Requester")
            #expect(try await client.getBucketConfiguration(OSSTransferAccelerationConfiguration.self, bucketName: b).configuration.enabled)
            let policy = try await client.getBucketPolicy(bucketName: b).policy
            #expect(try Self.json(policy) == Self.json(Self.policy(b)))

            let s = "from-swift"
            try await client.putBucketConfiguration(Self.cors, bucketName: s)
            try await client.putBucketConfiguration(Self.lifecycle, bucketName: s)
            try await client.putBucketConfiguration(Self.referer, bucketName: s)
            try await client.putBucketConfiguration(OSSBucketTagging(tags: Self.tags), bucketName: s)
            try await client.putBucketConfiguration(Self.encryption, bucketName: s)
            try await client.putBucketConfiguration(Self.logging, bucketName: s)
            try await client.putBucketConfiguration(Self.website, bucketName: s)
            try await client.putBucketConfiguration(OSSRequestPaymentConfiguration(payer: "Requester"), bucketName: s)
            try await client.putBucketConfiguration(OSSTransferAccelerationConfiguration(enabled: true), bucketName: s)
            try await client.putBucketPolicy(Self.policy(s), bucketName: s)
            let (checked, checkLog) = try await Self.run(python, phase: "check", bucket: s, server: server)
            #expect(checked == 0, "judge_bucket_config.py check failed:\n\(checkLog)")
        }
    }

    static func json(_ text: String) throws -> NSDictionary {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    /// Runs one phase of the judge; returns its exit status and output.
    static func run(_ python: URL, phase: String, bucket: String, server: LocalOSSServer) async throws -> (Int32, String) {
        try await runPythonScript(
            python,
            [
                "judge_bucket_config.py", "--phase", phase, "--bucket", bucket, "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", server.credentials.accessKeyId, "--access-key-secret", server.credentials.accessKeySecret,
            ], in: packageRoot.appendingPathComponent("Tests/python"))
    }
}
