import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The official Python clients judge data protection (Tests/python/judge_data_protection.py): alibabacloud-oss-v2
/// writes overwrite rules and drives a retention policy through its states, meeting OSS's refusals, and the Swift
/// SDK reads both back field for field; the Swift SDK writes its own, and v2 reads them back and sees a delete and
/// an overwrite refused (oss2, V1-signed, too).
@Suite("Data protection judged by the official Python clients")
struct DataProtectionJudgeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let principal = "27737962156157"

    /// The fixture judge_data_protection.py writes and expects, with the writer's rule IDs.
    static func rules(_ writer: String) -> OSSOverwriteConfiguration {
        OSSOverwriteConfiguration(rules: [
            .init(id: writer + "-conf", prefix: "conf/", suffix: ".json", principals: [principal]),
            .init(id: writer + "-locked", prefix: "locked/"),
        ])
    }

    @Test func officialClientsAndTheSDKSeeTheSameProtection() async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        try await withServerAndClient(extraBuckets: ["from-python", "from-swift"]) { server, client in
            let (written, writeLog) = try await Self.run(python, phase: "write", bucket: "from-python", server: server)
            #expect(written == 0, "judge_data_protection.py write failed:\n\(writeLog)")
            let read = try await client.getBucketConfiguration(OSSOverwriteConfiguration.self, bucketName: "from-python")
            #expect(read.configuration == Self.rules("py"))
            let worm = try await client.getBucketWorm(bucketName: "from-python").worm
            #expect(worm.state == .locked && worm.retentionPeriodInDays == 2 && worm.creationDate != nil && !worm.wormId.isEmpty)
            #expect(await serverError {
                _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "from-python", objectKey: "kept"))
            }?.code == "FileImmutable")

            let s = "from-swift"
            try await client.putBucketConfiguration(Self.rules("swift"), bucketName: s)
            for (key, text) in [("kept", "kept"), ("locked/x", "x")] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: s, objectKey: key, data: Data(text.utf8)))
            }
            let started = try await client.initiateBucketWorm(retentionPeriodInDays: 3, bucketName: s)
            try await client.completeBucketWorm(wormId: started.wormId, bucketName: s)
            let (checked, checkLog) = try await Self.run(python, phase: "check", bucket: s, server: server)
            #expect(checked == 0, "judge_data_protection.py check failed:\n\(checkLog)")
            #expect(try await client.getBucketWorm(bucketName: s).worm.retentionPeriodInDays == 4, "extended by v2")
        }
    }

    /// Runs one phase of the judge; returns its exit status and output.
    static func run(_ python: URL, phase: String, bucket: String, server: LocalOSSServer) async throws -> (Int32, String) {
        try await runPythonScript(
            python,
            [
                "judge_data_protection.py", "--phase", phase, "--bucket", bucket, "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", server.credentials.accessKeyId, "--access-key-secret", server.credentials.accessKeySecret,
            ], in: packageRoot.appendingPathComponent("Tests/python"))
    }
}
