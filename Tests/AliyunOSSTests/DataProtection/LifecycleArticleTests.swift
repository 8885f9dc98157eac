import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

// MARK: The code of LifecycleAndCost.md (DocC), verbatim: the article's blocks are checked against this file and
// run against the local server below.

func expireScratchFiles(client: OSSClient) async throws {
    let rules = OSSLifecycleConfiguration(rules: [
        OSSLifecycleRule(id: "scratch", prefix: "tmp/", expiration: .init(days: 7)),
        OSSLifecycleRule(id: "uploads", prefix: "", abortMultipartUpload: .init(days: 3)),
        OSSLifecycleRule(id: "cold", prefix: "logs/", transitions: [.init(days: 30, storageClass: "IA")]),
    ])
    try await client.putBucketConfiguration(rules, bucketName: "my-bucket")
}

func runRulesAWeekOn(server: LocalOSSServer) async throws -> LocalOSSLifecycleReport {
    let report = try await server.runLifecycle(now: Date().addingTimeInterval(8 * 86_400))
    for action in report.actions {
        print(action.rule, action.action, action.key)   // scratch Expiration tmp/build.log, ...
    }
    return report
}

/// The Lifecycle and cost article: its code is this file's, and its rules act on the local server.
@Suite("Lifecycle and cost article")
struct LifecycleArticleTests {
    static let source = URL(fileURLWithPath: #filePath)

    @Test func everyBlockOfTheArticleIsThisFilesCodeVerbatim() throws {
        try DocSnippetsTests.expectBlocksVerbatim(of: "LifecycleAndCost.md", count: 2, in: Self.source)
    }

    @Test func theArticlesRulesExpireAndAbort() async throws {
        try await withServerAndClient(extraBuckets: ["my-bucket"]) { server, client in
            try await expireScratchFiles(client: client)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "tmp/build.log", data: Data("x".utf8)))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "logs/day.log", data: Data("y".utf8)))
            let upload = try await client.initiateMultipartUpload(OSSInitiateMultipartUploadRequest(bucketName: "my-bucket", objectKey: "big.bin"))
            let report = try await runRulesAWeekOn(server: server)
            #expect(Set(report.actions.map { "\($0.rule) \($0.action) \($0.key)" }) == [
                "scratch Expiration tmp/build.log", "uploads AbortMultipartUpload big.bin",
            ])
            #expect(report.actions.first { $0.action == "AbortMultipartUpload" }?.uploadId == upload.uploadId)
            #expect(await serverError {
                _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "my-bucket", objectKey: "tmp/build.log"))
            }?.statusCode == 404)
            // 30 days on the logs move to IA.
            let later = try await server.runLifecycle(now: Date().addingTimeInterval(31 * 86_400))
            #expect(later.actions.map(\.storageClass) == ["IA"])
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "my-bucket", objectKey: "logs/day.log"))
            #expect(head.storageClass == "IA")
        }
    }
}
