import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// alibabacloud-oss-v2 judges the operations families (Tests/python/judge_bucket_operations.py): it writes HTTPS
/// config, access monitor, archive direct read, resource group, two inventories, a style and a replication rule and
/// the Swift SDK reads each back field for field; the Swift SDK writes the same fixture and v2 reads it back.
@Suite("Operations families judged by alibabacloud-oss-v2")
struct BucketOperationsJudgeTests {
    static let destination = "judge-ops-dest"
    static let https = OSSHTTPSConfiguration(
        tls: .init(enable: true, tlsVersions: ["TLSv1.2", "TLSv1.3"]),
        cipherSuite: .init(
            enable: true, strongCipherSuite: false,
            customCipherSuites: ["ECDHE-ECDSA-AES128-SHA256", "ECDHE-RSA-AES128-GCM-SHA256"],
            tls13CustomCipherSuites: ["TLS_AES_256_GCM_SHA384"]))
    static let inventory = OSSInventoryConfiguration(
        id: "report1", isEnabled: true,
        destination: .init(
            .init(
                bucket: "acs:oss:::\(destination)", accountId: "1000000000000000",
                roleArn: "acs:ram::1000000000000000:role/AliyunOSSRole", prefix: "inv/",
                encryption: .init(sseKMS: .init(keyId: "kms-1")))),
        schedule: .init(frequency: "Weekly"),
        filter: .init(
            prefix: "logs/", lastModifyBeginTimeStamp: 1_637_883_649, lastModifyEndTimeStamp: 1_638_347_592,
            lowerSizeBound: 1024, upperSizeBound: 1_048_576, storageClass: "Standard,IA"),
        includedObjectVersions: "All", optionalFields: .init(["Size", "LastModifiedDate", "ETag"]))
    static let smallInventory = OSSInventoryConfiguration(
        id: "report2", isEnabled: false, destination: .init(.init(bucket: "acs:oss:::\(destination)")),
        schedule: .init(frequency: "Daily"), includedObjectVersions: "Current")
    static let rule = OSSReplicationRule(
        id: "rule-1", prefixSet: .init(["source/", "docs/"]), action: "PUT",
        destination: .init(bucket: destination, location: "oss-cn-beijing", transferType: "oss_acc"),
        historicalObjectReplication: "disabled", syncRole: "aliyunramrole",
        sourceSelectionCriteria: .init(sseKmsEncryptedObjects: .init(status: "Enabled")),
        encryptionConfiguration: .init(replicaKmsKeyId: "kms-2"), rtc: .init(status: "enabled"))

    @Test func officialClientAndTheSDKReadEachOthersConfigurations() async throws {
        let root = BucketConfigurationJudgeTests.packageRoot
        let python = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with alibabacloud-oss-v2).")
            return
        }
        try await withServerAndClient(extraBuckets: ["ops-from-python", "ops-from-swift", Self.destination]) { server, client in
            let (written, writeLog) = try await Self.run(python, phase: "write", bucket: "ops-from-python", server: server)
            #expect(written == 0, "judge_bucket_operations.py write failed:\n\(writeLog)")

            let b = "ops-from-python"
            #expect(try await client.getBucketConfiguration(OSSHTTPSConfiguration.self, bucketName: b).configuration == Self.https)
            #expect(try await client.getBucketConfiguration(OSSAccessMonitorConfiguration.self, bucketName: b).configuration.status == "Enabled")
            #expect(try await client.getBucketConfiguration(OSSArchiveDirectReadConfiguration.self, bucketName: b).configuration.enabled)
            #expect(
                try await client.getBucketConfiguration(OSSBucketResourceGroup.self, bucketName: b).configuration.resourceGroupId
                    == "rg-aek27tc123")
            #expect(try await client.getBucketConfiguration(OSSInventoryConfiguration.self, named: "report1", bucketName: b).configuration == Self.inventory)
            let inventories = try await client.listBucketConfigurations(OSSInventoryConfiguration.self, bucketName: b)
            #expect(inventories.configurations == [Self.inventory, Self.smallInventory])
            #expect(!inventories.isTruncated)
            let style = try await client.getBucketConfiguration(OSSImageStyle.self, named: "thumb", bucketName: b).configuration
            #expect((style.name, style.content) == ("thumb", "image/resize,p_50"))
            #expect(try await client.listBucketConfigurations(OSSImageStyle.self, bucketName: b).configurations.map(\.name) == ["thumb"])
            var stored = Self.rule
            stored.status = "starting"
            #expect(try await client.getBucketReplication(bucketName: b).rules == [stored])
            let progress = try await client.getBucketReplicationProgress(ruleId: "rule-1", bucketName: b).rules
            #expect(progress.map(\.rule) == [stored])
            #expect(progress.first?.newObject != nil)

            let s = "ops-from-swift"
            try await client.putBucketConfiguration(Self.https, bucketName: s)
            try await client.putBucketConfiguration(OSSAccessMonitorConfiguration(status: "Enabled"), bucketName: s)
            try await client.putBucketConfiguration(OSSArchiveDirectReadConfiguration(enabled: true), bucketName: s)
            try await client.putBucketConfiguration(OSSBucketResourceGroup(resourceGroupId: "rg-aek27tc123"), bucketName: s)
            try await client.putBucketConfiguration(Self.inventory, named: "report1", bucketName: s)
            try await client.putBucketConfiguration(Self.smallInventory, named: "report2", bucketName: s)
            try await client.putBucketConfiguration(OSSImageStyle(content: "image/resize,p_50"), named: "thumb", bucketName: s)
            #expect(try await client.putBucketReplication(Self.rule, bucketName: s).ruleId == "rule-1")
            let (checked, checkLog) = try await Self.run(python, phase: "check", bucket: s, server: server)
            #expect(checked == 0, "judge_bucket_operations.py check failed:\n\(checkLog)")
        }
    }

    static func run(_ python: URL, phase: String, bucket: String, server: LocalOSSServer) async throws -> (Int32, String) {
        try await runPythonScript(
            python,
            [
                "judge_bucket_operations.py", "--phase", phase, "--bucket", bucket, "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", server.credentials.accessKeyId, "--access-key-secret", server.credentials.accessKeySecret,
            ], in: BucketConfigurationJudgeTests.packageRoot.appendingPathComponent("Tests/python"))
    }
}
