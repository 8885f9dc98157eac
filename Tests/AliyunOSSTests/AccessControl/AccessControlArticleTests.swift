import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

// MARK: The code of AccessControl.md (DocC), verbatim: the article's blocks are checked against this file and run
// against the local server below.

func publishPrefix(client: OSSClient) async throws {
    let policy = """
        {"Version":"1","Statement":[
          {"Effect":"Allow","Action":["oss:GetObject"],"Principal":["*"],
           "Resource":["acs:oss:*:*:my-bucket/public/*"]},
          {"Effect":"Deny","Action":["oss:DeleteObject"],"Principal":["*"],
           "Resource":["acs:oss:*:*:my-bucket/archive/*"],
           "Condition":{"NotIpAddress":{"acs:SourceIp":["10.0.0.0/8"]}}}]}
        """
    try await client.putBucketPolicy(policy, bucketName: "my-bucket")
}

func allowOnlyOurSite(client: OSSClient) async throws {
    let rules = OSSRefererConfiguration(
        allowEmptyReferer: false, allowTruncateQueryString: true,
        refererList: OSSRefererList(["https://*.example.com"]),
        refererBlacklist: OSSRefererList(["https://ads.example.com"]))
    try await client.putBucketConfiguration(rules, bucketName: "my-bucket")
}

func lockDown(client: OSSClient) async throws -> Bool {
    let block = OSSPublicAccessBlockConfiguration(blockPublicAccess: true)
    try await client.putBucketConfiguration(block, bucketName: "my-bucket")
    let stored = try await client.getBucketConfiguration(OSSPublicAccessBlockConfiguration.self, bucketName: "my-bucket")
    return stored.configuration.blockPublicAccess == true
}

func requesterPaysClient(endpoint: String, credentials: any OSSCredentialProvider) throws -> OSSClient {
    var configuration = OSSClientConfiguration(region: "cn-hangzhou")
    configuration.requestPayer = "requester"
    return try OSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration)
}

/// The Access control article: its code is this file's, and it acts on the local server (a policy publishes a prefix
/// and guards another, referer rules refuse a stranger's page, the block hides the published prefix, a requester
/// that pays is let into a requester-pays bucket). Also the SDK's public access block calls.
@Suite("Access control article")
struct AccessControlArticleTests {
    static let source = URL(fileURLWithPath: #filePath)
    static let other = LocalOSSUser(
        accessKeyId: "LTAIOtherAccountKey", accessKeySecret: "OtherAccountSecret", uid: "1888000000000001", sameAccount: false)

    /// A local server with `my-bucket` and a second account, and an owner's client.
    static func withServer(_ body: (LocalOSSServer, OSSClient) async throws -> Void) async throws {
        var configuration = LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["my-bucket"])
        configuration.users = [other]
        try await withLocalOSSServer(configuration) { server in
            var client = OSSClientConfiguration(region: "cn-hangzhou")
            client.transport = transportUnderTest
            try await withClient(of: server, server.credentials.provider, client, body)
        }
    }

    @Test func everyBlockOfTheArticleIsThisFilesCodeVerbatim() throws {
        try DocSnippetsTests.expectBlocksVerbatim(of: "AccessControl.md", count: 4, in: Self.source)
    }

    @Test func theArticlesCodeActsOnTheServer() async throws {
        try await Self.withServer { server, client in
            let anonymous = PresignTests()
            for key in ["public/a", "private/a", "archive/a"] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: key, data: Data([1])))
            }
            let published = try client.presignPublicURL(bucket: "my-bucket", key: "public/a")
            #expect(try await anonymous.send("GET", published).0 == 403)
            try await publishPrefix(client: client)
            #expect(try await anonymous.send("GET", published).0 == 200)
            #expect(try await anonymous.send("GET", try client.presignPublicURL(bucket: "my-bucket", key: "private/a")).0 == 403)
            // 127.0.0.1 is outside 10.0.0.0/8, and the condition binds the owner too.
            let refused = await serverError {
                try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "my-bucket", objectKey: "archive/a"))
            }
            #expect(refused?.code == "AccessDenied")

            try await allowOnlyOurSite(client: client)
            #expect(try await anonymous.send("GET", published, headers: ["Referer": "https://www.example.com/"]).0 == 200)
            #expect(try await anonymous.send("GET", published, headers: ["Referer": "https://ads.example.com/"]).0 == 403)
            #expect(try await anonymous.send("GET", published).0 == 403)

            #expect(try await lockDown(client: client))
            #expect(try await anonymous.send("GET", published, headers: ["Referer": "https://www.example.com/"]).0 == 403)
            try await client.deleteBucketConfiguration(OSSPublicAccessBlockConfiguration.self, bucketName: "my-bucket")
            #expect(try await anonymous.send("GET", published, headers: ["Referer": "https://www.example.com/"]).0 == 200)

            try await client.putBucketConfiguration(OSSRequestPaymentConfiguration(payer: "Requester"), bucketName: "my-bucket")
            let credentials = OSSCredentials(accessKeyId: Self.other.accessKeyId, accessKeySecret: Self.other.accessKeySecret)
            let stranger = try OSSClient(endpoint: server.endpoint.absoluteString, credentialProvider: credentials.provider)
            let payer = try requesterPaysClient(endpoint: server.endpoint.absoluteString, credentials: credentials.provider)
            let get = OSSGetObjectRequest(bucketName: "my-bucket", objectKey: "public/a")
            #expect(await serverError { _ = try await stranger.getObject(get) }?.code == "AccessDenied")
            #expect(try await payer.getObject(get).content == Data([1]))
            try await stranger.shutdown()
            try await payer.shutdown()
        }
    }

    @Test func theAccountsPublicAccessBlockCoversEveryBucket() async throws {
        try await Self.withServer { server, client in
            #expect(try await client.getPublicAccessBlock().configuration.blockPublicAccess == false)
            try await client.putBucketACL(OSSPutBucketACLRequest(bucketName: "my-bucket", acl: .publicRead))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "o", data: Data([2])))
            let url = try client.presignPublicURL(bucket: "my-bucket", key: "o")
            #expect(try await PresignTests().send("GET", url).0 == 200)
            try await client.putPublicAccessBlock(OSSPublicAccessBlockConfiguration(blockPublicAccess: true))
            #expect(try await client.getPublicAccessBlock().configuration.blockPublicAccess == true)
            #expect(try await PresignTests().send("GET", url).0 == 403)
            let refused = await serverError {
                try await client.putBucketACL(OSSPutBucketACLRequest(bucketName: "my-bucket", acl: .publicReadWrite))
            }
            #expect(refused?.code == "AccessDenied" && refused?.statusCode == 403)
            try await client.deletePublicAccessBlock()
            #expect(try await PresignTests().send("GET", url).0 == 200)
        }
    }
}
