import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The SDK's bucket configuration families against the local server: each written and read back field for field,
/// deleted where OSS has a delete, and the unset answer OSS gives.
@Suite("Bucket configuration families through the SDK")
struct BucketConfigurationSDKTests {
    static let midnight = Date(timeIntervalSince1970: 1_705_276_800)  // 2024-01-15T00:00:00Z

    static let cors = OSSCORSConfiguration(
        rules: [
            OSSCORSRule(
                allowedOrigins: ["https://*.example.com", "http://localhost:8080"], allowedMethods: ["GET", "PUT", "POST"],
                allowedHeaders: ["x-oss-*", "content-type"], exposeHeaders: ["ETag", "x-oss-request-id"], maxAgeSeconds: 600),
            OSSCORSRule(allowedOrigins: ["*"], allowedMethods: ["HEAD"]),
        ], responseVary: true)

    static let lifecycle = OSSLifecycleConfiguration(rules: [
        OSSLifecycleRule(
            id: "tmp", prefix: "tmp/", status: .enabled, expiration: .init(days: 30),
            transitions: [
                .init(days: 7, storageClass: "IA", isAccessTime: false),
                .init(days: 14, storageClass: "Archive"),
            ],
            tags: [OSSTag(key: "kind", value: "scratch")],
            filter: .init(objectSizeGreaterThan: 1024, objectSizeLessThan: 1 << 30, not: [.init(prefix: "tmp/keep/")])),
        OSSLifecycleRule(
            id: "uploads", prefix: "", status: .disabled,
            abortMultipartUpload: .init(createdBeforeDate: midnight),
            noncurrentVersionExpiration: .init(noncurrentDays: 10),
            noncurrentVersionTransitions: [.init(noncurrentDays: 5, storageClass: "ColdArchive")]),
        OSSLifecycleRule(id: "markers", status: .enabled, expiration: .init(expiredObjectDeleteMarker: true)),
        OSSLifecycleRule(id: "old", prefix: "old/", expiration: .init(createdBeforeDate: midnight)),
    ])

    static let referer = OSSRefererConfiguration(
        allowEmptyReferer: false, allowTruncateQueryString: true, truncatePath: true,
        refererList: OSSRefererList(["https://*.example.com", "http://www.?.org"]),
        refererBlacklist: OSSRefererList(["https://bad.example.com"]))

    static let website = OSSWebsiteConfiguration(
        indexDocument: .init(suffix: "index.html", supportSubDir: true, type: 0),
        errorDocument: .init(key: "404.html", httpStatus: 404),
        routingRules: .init([
            .init(
                ruleNumber: 1, condition: .init(keyPrefixEquals: "old/", httpErrorCodeReturnedEquals: 404),
                redirect: .init(
                    redirectType: "External", passQueryString: true, replaceKeyPrefixWith: "new/", protocol: "https",
                    hostName: "example.com", httpRedirectCode: 301))
        ]))

    @Test func eachFamilyReadsBackWhatItWrote() async throws {
        try await withServerAndClient(extraBuckets: ["logs"]) { _, client in
            try await client.putBucketConfiguration(Self.cors, bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSCORSConfiguration.self, bucketName: "bkt").configuration == Self.cors)
            try await client.putBucketConfiguration(Self.lifecycle, bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSLifecycleConfiguration.self, bucketName: "bkt").configuration == Self.lifecycle)
            try await client.putBucketConfiguration(Self.referer, bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSRefererConfiguration.self, bucketName: "bkt").configuration == Self.referer)
            let tags = [OSSTag(key: "team", value: "storage"), OSSTag(key: "cost-center", value: "")]
            try await client.putBucketConfiguration(OSSBucketTagging(tags: tags), bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSBucketTagging.self, bucketName: "bkt").configuration.tags == tags)
            let encryption = OSSBucketEncryption(.init(sseAlgorithm: "KMS", kmsDataEncryption: "SM4", kmsMasterKeyId: "key-1"))
            try await client.putBucketConfiguration(encryption, bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSBucketEncryption.self, bucketName: "bkt").configuration == encryption)
            let logging = OSSBucketLogging(loggingEnabled: .init(targetBucket: "logs", targetPrefix: "bkt/"))
            try await client.putBucketConfiguration(logging, bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSBucketLogging.self, bucketName: "bkt").configuration == logging)
            try await client.putBucketConfiguration(Self.website, bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSWebsiteConfiguration.self, bucketName: "bkt").configuration == Self.website)
            try await client.putBucketConfiguration(OSSRequestPaymentConfiguration(payer: OSSRequestPaymentConfiguration.requester), bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSRequestPaymentConfiguration.self, bucketName: "bkt").configuration.payer == "Requester")
            try await client.putBucketConfiguration(OSSTransferAccelerationConfiguration(enabled: true), bucketName: "bkt")
            #expect(try await client.getBucketConfiguration(OSSTransferAccelerationConfiguration.self, bucketName: "bkt").configuration.enabled)
            let policy = #"{"Version":"1","Statement":[{"Effect":"Deny","Action":["oss:DeleteObject"],"Principal":["*"],"Resource":["acs:oss:*:*:bkt/*"]}]}"#
            try await client.putBucketPolicy(policy, bucketName: "bkt")
            #expect(try await client.getBucketPolicy(bucketName: "bkt").policy == policy)

            // The generic calls serve any family the same way.
            let generic = try await client.getBucketConfiguration(OSSBucketConfigurationRequest(bucketName: "bkt", OSSCORSConfiguration.self))
            #expect(generic.configuration == Self.cors && !generic.requestId.isEmpty)
        }
    }

    @Test func unsetFamiliesAnswerAsOSSDoes() async throws {
        try await withServerAndClient { _, client in
            #expect(await serverError { _ = try await client.getBucketConfiguration(OSSCORSConfiguration.self, bucketName: "bkt") }?.code == "NoSuchCORSConfiguration")
            #expect(await serverError { _ = try await client.getBucketConfiguration(OSSLifecycleConfiguration.self, bucketName: "bkt") }?.code == "NoSuchLifecycle")
            #expect(await serverError { _ = try await client.getBucketConfiguration(OSSWebsiteConfiguration.self, bucketName: "bkt") }?.code == "NoSuchWebsiteConfiguration")
            #expect(await serverError { _ = try await client.getBucketConfiguration(OSSBucketEncryption.self, bucketName: "bkt") }?.code == "NoSuchServerSideEncryptionRule")
            #expect(await serverError { _ = try await client.getBucketPolicy(bucketName: "bkt") }?.code == "NoSuchBucketPolicy")
            #expect(
                await serverError { _ = try await client.getBucketConfiguration(OSSTransferAccelerationConfiguration.self, bucketName: "bkt") }?.code
                    == "NoSuchTransferAccelerationConfiguration")
            let referer = try await client.getBucketConfiguration(OSSRefererConfiguration.self, bucketName: "bkt").configuration
            #expect(referer.allowEmptyReferer && referer.refererList.referers.isEmpty)
            #expect(try await client.getBucketConfiguration(OSSBucketTagging.self, bucketName: "bkt").configuration.tags.isEmpty)
            #expect(try await client.getBucketConfiguration(OSSBucketLogging.self, bucketName: "bkt").configuration.loggingEnabled == nil)
            #expect(try await client.getBucketConfiguration(OSSRequestPaymentConfiguration.self, bucketName: "bkt").configuration.payer == "BucketOwner")
        }
    }

    @Test func deletesRemoveTheFamily() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketConfiguration(Self.cors, bucketName: "bkt")
            try await client.putBucketConfiguration(Self.lifecycle, bucketName: "bkt")
            try await client.putBucketConfiguration(OSSBucketTagging(tags: [OSSTag(key: "a", value: "b")]), bucketName: "bkt")
            try await client.deleteBucketConfiguration(OSSCORSConfiguration.self, bucketName: "bkt")
            try await client.deleteBucketConfiguration(OSSBucketConfigurationRequest(bucketName: "bkt", OSSLifecycleConfiguration.self))
            try await client.putBucketConfiguration(OSSBucketTagging(tags: [OSSTag(key: "a", value: "b"), OSSTag(key: "c", value: "d"), OSSTag(key: "e", value: "f")]), bucketName: "bkt")
            try await client.deleteBucketTags(bucketName: "bkt", keys: ["a", "e"])
            #expect(try await client.getBucketConfiguration(OSSBucketTagging.self, bucketName: "bkt").configuration.tags == [OSSTag(key: "c", value: "d")])
            try await client.deleteBucketTags(bucketName: "bkt")
            #expect(await serverError { _ = try await client.getBucketConfiguration(OSSCORSConfiguration.self, bucketName: "bkt") }?.code == "NoSuchCORSConfiguration")
            #expect(await serverError { _ = try await client.getBucketConfiguration(OSSLifecycleConfiguration.self, bucketName: "bkt") }?.code == "NoSuchLifecycle")
            #expect(try await client.getBucketConfiguration(OSSBucketTagging.self, bucketName: "bkt").configuration.tags.isEmpty)
        }
    }

    @Test func theServerRefusesWhatOSSRefuses() async throws {
        try await withServerAndClient { _, client in
            let badMethod = OSSCORSConfiguration(rules: [OSSCORSRule(allowedOrigins: ["*"], allowedMethods: ["PATCH"])])
            #expect(await serverError { try await client.putBucketConfiguration(badMethod, bucketName: "bkt") }?.code == "InvalidArgument")
            let late = OSSLifecycleConfiguration(rules: [
                OSSLifecycleRule(expiration: .init(days: 3), transitions: [.init(days: 9, storageClass: "IA")])
            ])
            #expect(await serverError { try await client.putBucketConfiguration(late, bucketName: "bkt") }?.code == "InvalidArgument")
            let noTarget = OSSBucketLogging(loggingEnabled: .init(targetBucket: "nowhere"))
            #expect(
                await serverError { try await client.putBucketConfiguration(noTarget, bucketName: "bkt") }?.code
                    == "InvalidTargetBucketForLogging")
            #expect(await serverError { try await client.putBucketPolicy("{", bucketName: "bkt") }?.code == "InvalidPolicyDocument")
        }
    }

    @Test func theSDKRefusesBeforeSending() async throws {
        try await withServerAndClient { server, client in
            let empty = await clientErrorCode { try await client.putBucketConfiguration(OSSCORSConfiguration(rules: []), bucketName: "bkt") }
            #expect(empty == .invalidArgument)
            let tooMany = (0...20).map { OSSTag(key: "k\($0)", value: "v") }
            #expect(await clientErrorCode { try await client.putBucketConfiguration(OSSBucketTagging(tags: tooMany), bucketName: "bkt") } == .invalidArgument)
            let status = OSSLifecycleConfiguration(rules: [OSSLifecycleRule(status: OSSRuleStatus(rawValue: "On"), expiration: .init(days: 1))])
            #expect(await clientErrorCode { try await client.putBucketConfiguration(status, bucketName: "bkt") } == .invalidArgument)
            #expect(await clientErrorCode { try await client.putBucketPolicy("", bucketName: "bkt") } == .invalidArgument)
            #expect(await server.stats().operations["PutBucketCors"] == nil)
        }
    }

    @Test func bucketStatCountsWhatTheBucketHolds() async throws {
        try await withServerAndClient { _, client in
            let empty = try await client.getBucketStat(bucketName: "bkt").stat
            #expect(empty.storage == 0 && empty.objectCount == 0 && empty.multipartUploadCount == 0)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "a", data: Data(count: 10)))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "b", data: Data(count: 20)))
            var cold = OSSPutObjectRequest(bucketName: "bkt", objectKey: "c", data: Data(count: 5))
            cold.setStorageClass(.ia)
            _ = try await client.putObject(cold)
            let upload = try await client.initiateMultipartUpload(OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "m"))
            for number in 1...2 {
                _ = try await client.uploadPart(
                    OSSUploadPartRequest(
                        bucketName: "bkt", objectKey: "m", uploadId: upload.uploadId, partNumber: number, source: .data(Data([1]))))
            }
            let stat = try await client.getBucketStat(bucketName: "bkt").stat
            #expect(stat.storage == 35 && stat.objectCount == 3)
            #expect(stat.standardStorage == 30 && stat.standardObjectCount == 2)
            #expect(stat.infrequentAccessStorage == 5 && stat.infrequentAccessObjectCount == 1)
            #expect(stat.multipartUploadCount == 1 && stat.multipartPartCount == 2)
            #expect((stat.lastModifiedTime ?? 0) > 1_700_000_000)
        }
    }

    @Test("GetBucketStat of a versioned bucket counts every version as OSS bills them, and the delete markers")
    func bucketStatCountsVersions() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            for size in [10, 20] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data(count: size)))
            }
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "k"))
            let stat = try await client.getBucketStat(bucketName: "bkt").stat
            #expect(stat.storage == 30 && stat.objectCount == 2, "\(stat)")
            #expect(stat.deleteMarkerCount == 1)
        }
    }

    @Test("GetBucketInfo reports the bucket's default encryption once it is set")
    func bucketInfoReportsDefaultEncryption() async throws {
        try await withServerAndClient { _, client in
            func bucketInfo() async throws -> String {
                try await client.invoke(
                    OSSOperation(name: "GetBucketInfo", method: "GET", bucket: "bkt", query: ["bucketInfo": ""])
                ) { String(decoding: try await $0.body.collect(upTo: 1 << 20), as: UTF8.self) }
            }
            #expect(try await bucketInfo().contains("<SSEAlgorithm>None</SSEAlgorithm>"))
            let rule = OSSBucketEncryption(.init(sseAlgorithm: "KMS", kmsMasterKeyId: "key-1"))
            try await client.putBucketConfiguration(.init(bucketName: "bkt", configuration: rule))
            let after = try await bucketInfo()
            #expect(after.contains("<SSEAlgorithm>KMS</SSEAlgorithm>"), "\(after)")
            #expect(after.contains("<KMSMasterKeyID>key-1</KMSMasterKeyID>"), "\(after)")
        }
    }

    @Test func bucketExistence() async throws {
        try await withServerAndClient { _, client in
            let exists = try await client.doesBucketExist("bkt")
            let missing = try await client.doesBucketExist("no-such-bucket")
            #expect(exists && !missing)
        }
    }
}
