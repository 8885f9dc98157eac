import AliyunOSS
import Foundation
import OSSTestSupport
import Testing

// MARK: The code of DataProtection.md (DocC), verbatim: the article's blocks are checked against this file and run
// against the local server below.

func lockRetention(days: Int, client: OSSClient) async throws -> OSSBucketWorm {
    let started = try await client.initiateBucketWorm(retentionPeriodInDays: days, bucketName: "my-bucket")
    // Until it is locked the policy can be aborted, and it lapses after 24 hours.
    try await client.completeBucketWorm(wormId: started.wormId, bucketName: "my-bucket")
    return try await client.getBucketWorm(bucketName: "my-bucket").worm
}

func deleteUnlessRetained(_ key: String, client: OSSClient) async throws -> Bool {
    do {
        _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "my-bucket", objectKey: key))
        return true
    } catch let error as OSSServerError where error.code == "FileImmutable" {
        return false   // younger than the retention period: neither deleted nor overwritten
    }
}

func forbidOverwritingConfigs(client: OSSClient) async throws {
    let rules = OSSOverwriteConfiguration(rules: [
        .init(id: "configs", prefix: "config/", suffix: ".json"),
    ])
    try await client.putBucketConfiguration(rules, bucketName: "my-bucket")
}

func encryptByDefault(client: OSSClient) async throws -> String? {
    let rule = OSSBucketEncryption(.init(sseAlgorithm: "KMS", kmsMasterKeyId: "my-key"))
    try await client.putBucketConfiguration(rule, bucketName: "my-bucket")
    _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "a.txt", data: Data("a".utf8)))
    let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "my-bucket", objectKey: "a.txt"))
    return head.headers["x-oss-server-side-encryption"]   // "KMS", with the key in ...-key-id
}

func retainForAudit(_ key: String, client: OSSClient) async throws -> OSSObjectRetention {
    // ObjectWorm needs versioning; every new version then gets the default retention.
    let worm = OSSBucketObjectWormConfiguration(defaultRetention: .init(mode: .governance, days: 30))
    try await client.putBucketConfiguration(worm, bucketName: "my-bucket")
    let put = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: key, data: Data("audit".utf8)))
    let until = Date().addingTimeInterval(365 * 86_400)
    try await client.putObjectRetention(
        OSSObjectRetention(mode: .compliance, retainUntilDate: until), bucketName: "my-bucket", objectKey: key,
        versionId: put.versionId)
    try await client.putObjectLegalHold(.on, bucketName: "my-bucket", objectKey: key, versionId: put.versionId)
    return try await client.getObjectRetention(bucketName: "my-bucket", objectKey: key, versionId: put.versionId).retention
}

/// The Data protection article and the WORM and overwrite calls of the SDK against the local server.
@Suite("Data protection")
struct DataProtectionArticleTests {
    static let source = URL(fileURLWithPath: #filePath)

    @Test func everyBlockOfTheArticleIsThisFilesCodeVerbatim() throws {
        try DocSnippetsTests.expectBlocksVerbatim(of: "DataProtection.md", count: 5, in: Self.source)
    }

    @Test func theArticlesCodeLocksRetentionAndIsRefused() async throws {
        try await withServerAndClient(extraBuckets: ["my-bucket"]) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "ledger.csv", data: Data("1".utf8)))
            let worm = try await lockRetention(days: 30, client: client)
            #expect(worm.state == .locked && worm.retentionPeriodInDays == 30 && worm.creationDate != nil && worm.expirationDate == nil)
            #expect(try await deleteUnlessRetained("ledger.csv", client: client) == false)
            #expect(await serverError {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "ledger.csv", data: Data("2".utf8)))
            }?.code == "FileImmutable")
            // Locked: extended, never shortened nor aborted.
            #expect(await serverError { try await client.abortBucketWorm(bucketName: "my-bucket") }?.code == "WORMConfigurationLocked")
            #expect(await serverError {
                try await client.extendBucketWorm(wormId: worm.wormId, retentionPeriodInDays: 10, bucketName: "my-bucket")
            }?.code == "InvalidWORMConfiguration")
            try await client.extendBucketWorm(wormId: worm.wormId, retentionPeriodInDays: 60, bucketName: "my-bucket")
            #expect(try await client.getBucketWorm(bucketName: "my-bucket").worm.retentionPeriodInDays == 60)
        }
    }

    @Test func theArticlesObjectRetentionKeepsTheVersion() async throws {
        try await withServerAndClient(extraBuckets: ["my-bucket"]) { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "my-bucket", status: .enabled))
            let retention = try await retainForAudit("audit.csv", client: client)
            #expect(retention.mode == .compliance && retention.retainUntilDate > Date().addingTimeInterval(364 * 86_400))
            let version = try #require(try await client.headObject(OSSHeadObjectRequest(bucketName: "my-bucket", objectKey: "audit.csv")).versionId)
            #expect(await serverError {
                _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "my-bucket", objectKey: "audit.csv", versionId: version))
            }?.code == "FileImmutable")
        }
    }

    @Test func anUnlockedPolicyIsAbortedAndBadPeriodsNeverLeave() async throws {
        try await withServerAndClient { _, client in
            #expect(await serverError { _ = try await client.getBucketWorm(bucketName: "bkt") }?.code == "NoSuchWORMConfiguration")
            let started = try await client.initiateBucketWorm(retentionPeriodInDays: 1, bucketName: "bkt")
            let worm = try await client.getBucketWorm(bucketName: "bkt").worm
            #expect(worm.wormId == started.wormId && worm.state == .inProgress && worm.expirationDate != nil)
            try await client.abortBucketWorm(bucketName: "bkt")
            #expect(await serverError { try await client.completeBucketWorm(wormId: started.wormId, bucketName: "bkt") }?.code == "NoSuchWORMConfiguration")
            for days in [0, 25_551] {
                #expect(await clientErrorCode { _ = try await client.initiateBucketWorm(retentionPeriodInDays: days, bucketName: "bkt") } == .invalidArgument)
            }
            #expect(await clientErrorCode { try await client.completeBucketWorm(wormId: "", bucketName: "bkt") } == .invalidArgument)
        }
    }

    @Test func theArticlesOverwriteRulesAndEncryptionAct() async throws {
        try await withServerAndClient(extraBuckets: ["my-bucket"]) { _, client in
            try await forbidOverwritingConfigs(client: client)
            let rules = try await client.getBucketConfiguration(OSSOverwriteConfiguration.self, bucketName: "my-bucket").configuration
            #expect(rules == OSSOverwriteConfiguration(rules: [.init(id: "configs", prefix: "config/", suffix: ".json")]))
            let put = OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "config/app.json", data: Data("{}".utf8))
            _ = try await client.putObject(put)
            #expect(await serverError { _ = try await client.putObject(put) }?.code == "FileAlreadyExists")
            try await client.deleteBucketConfiguration(OSSOverwriteConfiguration.self, bucketName: "my-bucket")
            _ = try await client.putObject(put)
            #expect(try await encryptByDefault(client: client) == "KMS")
            // Principals round-trip; a non-forbid action never leaves the client.
            let named = OSSOverwriteConfiguration(rules: [.init(prefix: "a/", principals: ["27737962156157", "*"])])
            try await client.putBucketConfiguration(named, bucketName: "my-bucket")
            let read = try await client.getBucketConfiguration(OSSOverwriteConfiguration.self, bucketName: "my-bucket").configuration
            #expect(read.rules.first?.principals?.principals == ["27737962156157", "*"] && read.rules.first?.id?.isEmpty == false)
            let allow = OSSOverwriteConfiguration(rules: [.init(action: "allow")])
            #expect(await clientErrorCode { try await client.putBucketConfiguration(allow, bucketName: "my-bucket") } == .invalidArgument)
        }
    }
}
