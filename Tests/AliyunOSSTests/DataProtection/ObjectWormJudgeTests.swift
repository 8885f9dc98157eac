import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The official alibabacloud-oss-v2 client judges ObjectWorm (Tests/python/judge_object_worm.py): it turns ObjectWorm
/// on, sets a COMPLIANCE retention and a legal hold and meets OSS's refusals, and the Swift SDK reads all of it back
/// and sees the version deletes refused; the Swift SDK sets its own, and v2 reads them back, sees the deletes
/// refused, and deletes a GOVERNANCE version with bypass.
@Suite("ObjectWorm judged by the official Python client")
struct ObjectWormJudgeTests {
    static let complianceUntil = Date(timeIntervalSince1970: 4_071_006_245)  // 2099-01-02T03:04:05Z, as the judge

    @Test func officialClientAndTheSDKSeeTheSameRetention() async throws {
        let python = DataProtectionJudgeTests.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        try await withServerAndClient(extraBuckets: ["from-python", "from-swift"]) { server, client in
            let p = "from-python"
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: p, status: .enabled))
            let (written, log) = try await Self.run(python, phase: "write", bucket: p, server: server)
            #expect(written == 0, "judge_object_worm.py write failed:\n\(log)")
            var ids: [String: String] = [:]
            for line in log.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2, ["gov", "comp", "held"].contains(parts[0]) { ids[parts[0]] = parts[1] }
            }
            let (gov, comp, held) = (try #require(ids["gov"]), try #require(ids["comp"]), try #require(ids["held"]))
            let config = try await client.getBucketConfiguration(OSSBucketObjectWormConfiguration.self, bucketName: p)
            #expect(config.configuration == OSSBucketObjectWormConfiguration(defaultRetention: .init(mode: .governance, days: 1)))
            #expect(try await client.getObjectRetention(bucketName: p, objectKey: "gov", versionId: gov).retention.mode == .governance)
            let compliance = try await client.getObjectRetention(bucketName: p, objectKey: "comp", versionId: comp)
            #expect(compliance.retention == OSSObjectRetention(mode: .compliance, retainUntilDate: Self.complianceUntil))
            #expect(try await client.getObjectLegalHold(bucketName: p, objectKey: "held", versionId: held).status == .on)
            for (key, version) in [("gov", gov), ("comp", comp), ("held", held)] {
                #expect(await serverError {
                    _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: p, objectKey: key, versionId: version))
                }?.code == "FileImmutable", "\(key)")
            }

            let s = "from-swift"
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: s, status: .enabled))
            try await client.putBucketConfiguration(
                OSSBucketObjectWormConfiguration(defaultRetention: .init(mode: .governance, days: 1)), bucketName: s)
            for key in ["comp", "held"] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: s, objectKey: key, data: Data(key.utf8)))
            }
            try await client.putObjectRetention(
                OSSObjectRetention(mode: .compliance, retainUntilDate: Self.complianceUntil), bucketName: s, objectKey: "comp")
            try await client.putObjectLegalHold(.on, bucketName: s, objectKey: "held")
            let (checked, checkLog) = try await Self.run(python, phase: "check", bucket: s, server: server)
            #expect(checked == 0, "judge_object_worm.py check failed:\n\(checkLog)")
            #expect(await serverError {
                _ = try await client.headObject(OSSHeadObjectRequest(bucketName: s, objectKey: "held"))
            }?.statusCode == 404, "v2 deleted the GOVERNANCE version with bypass")
        }
    }

    static func run(_ python: URL, phase: String, bucket: String, server: LocalOSSServer) async throws -> (Int32, String) {
        try await runPythonScript(
            python,
            [
                "judge_object_worm.py", "--phase", phase, "--bucket", bucket, "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", server.credentials.accessKeyId, "--access-key-secret", server.credentials.accessKeySecret,
            ], in: DataProtectionJudgeTests.packageRoot.appendingPathComponent("Tests/python"))
    }
}
