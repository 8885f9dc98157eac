import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// Object-level retention and legal hold (ObjectWorm) through the Swift SDK against the local server: the bucket
/// family, the four object calls, and what the server refuses (deletes of protected versions by DeleteObject,
/// DeleteMultipleObjects and lifecycle; shortened COMPLIANCE retention; append) and lets through (a new version, a
/// delete marker, a GOVERNANCE delete with bypass).
@Suite("ObjectWorm: object retention and legal hold")
struct ObjectWormTests {
    static let farAhead = Date(timeIntervalSince1970: 4_071_006_245)  // 2099-01-02T03:04:05Z

    /// A versioned bucket `bkt` with ObjectWorm on (default GOVERNANCE, 1 day) and one version of `key`.
    static func prepared(_ client: OSSClient, key: String = "doc") async throws -> String {
        try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
        try await client.putBucketConfiguration(
            OSSBucketObjectWormConfiguration(defaultRetention: .init(mode: .governance, days: 1)), bucketName: "bkt")
        let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data("v1".utf8)))
        return try #require(put.versionId)
    }

    @Test func theFamilyNeedsVersioningAndReadsBack() async throws {
        try await withServerAndClient { _, client in
            let config = OSSBucketObjectWormConfiguration(defaultRetention: .init(mode: .compliance, years: 2))
            let refused = await serverError { try await client.putBucketConfiguration(config, bucketName: "bkt") }
            #expect(refused?.statusCode == 409 && refused?.code == "InvalidBucketState")
            #expect(await serverError {
                _ = try await client.getBucketConfiguration(OSSBucketObjectWormConfiguration.self, bucketName: "bkt")
            }?.statusCode == 404)
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            try await client.putBucketConfiguration(config, bucketName: "bkt")
            let read = try await client.getBucketConfiguration(OSSBucketObjectWormConfiguration.self, bucketName: "bkt")
            #expect(read.configuration == config)
            #expect(throws: OSSClientError.self) {
                try OSSBucketObjectWormConfiguration(defaultRetention: .init(mode: .compliance, days: 1, years: 1)).validate()
            }
        }
    }

    @Test func aNewVersionGetsTheDefaultRetentionAndCannotBeDeletedWithoutBypass() async throws {
        try await withServerAndClient { _, client in
            let v1 = try await Self.prepared(client)
            let got = try await client.getObjectRetention(bucketName: "bkt", objectKey: "doc", versionId: v1)
            #expect(got.retention.mode == .governance && got.versionId == v1)
            #expect(abs(got.retention.retainUntilDate.timeIntervalSinceNow - 86_400) < 120)
            let refused = await serverError {
                _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "doc", versionId: v1))
            }
            #expect(refused?.statusCode == 409 && refused?.code == "FileImmutable")
            // A new write is a new version; a delete without a version id only adds a marker.
            let v2 = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "doc", data: Data("v2".utf8)))
            #expect(v2.versionId != v1)
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "doc"))
            let still = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "doc", versionId: v1))
            #expect(still.content.map { String(decoding: $0, as: UTF8.self) } == "v1")
        }
    }

    @Test func complianceIsOnlyExtendedAndNeverDeleted() async throws {
        try await withServerAndClient { _, client in
            let v1 = try await Self.prepared(client)
            try await client.putObjectRetention(
                OSSObjectRetention(mode: .compliance, retainUntilDate: Self.farAhead), bucketName: "bkt", objectKey: "doc",
                versionId: v1)
            let read = try await client.getObjectRetention(bucketName: "bkt", objectKey: "doc", versionId: v1).retention
            #expect(read == OSSObjectRetention(mode: .compliance, retainUntilDate: Self.farAhead))
            let shorter = await serverError {
                try await client.putObjectRetention(
                    OSSObjectRetention(mode: .compliance, retainUntilDate: Self.farAhead.addingTimeInterval(-86_400)),
                    bucketName: "bkt", objectKey: "doc", versionId: v1, bypassGovernanceRetention: true)
            }
            #expect(shorter?.statusCode == 403)
            try await client.putObjectRetention(
                OSSObjectRetention(mode: .compliance, retainUntilDate: Self.farAhead.addingTimeInterval(86_400)),
                bucketName: "bkt", objectKey: "doc", versionId: v1)
            let past = await serverError {
                try await client.putObjectRetention(
                    OSSObjectRetention(mode: .governance, retainUntilDate: Date(timeIntervalSince1970: 1_000)),
                    bucketName: "bkt", objectKey: "doc", versionId: v1)
            }
            #expect(past?.code == "InvalidArgument")
            for attempt in 0..<2 {
                let refused = await serverError {
                    if attempt == 0 {
                        _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "doc", versionId: v1))
                    } else {
                        _ = try await client.deleteMultipleObjects(
                            OSSDeleteMultipleObjectsRequest(bucketName: "bkt", objects: [.init(objectKey: "doc", versionId: v1)]))
                    }
                }
                #expect(refused?.code == "FileImmutable", "attempt \(attempt)")
            }
        }
    }

    @Test func aLegalHoldKeepsAVersionUntilTakenOffAndBypassPassesGovernance() async throws {
        try await withServerAndClient { server, client in
            let v1 = try await Self.prepared(client)
            #expect(try await client.getObjectLegalHold(bucketName: "bkt", objectKey: "doc", versionId: v1).status == .off)
            try await client.putObjectLegalHold(.on, bucketName: "bkt", objectKey: "doc", versionId: v1)
            #expect(try await client.getObjectLegalHold(bucketName: "bkt", objectKey: "doc", versionId: v1).status == .on)
            // Lifecycle leaves the held, noncurrent version in place.
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "doc", data: Data("v2".utf8)))
            try await client.putBucketConfiguration(
                OSSLifecycleConfiguration(rules: [
                    OSSLifecycleRule(id: "old", prefix: "", noncurrentVersionExpiration: .init(noncurrentDays: 1))
                ]), bucketName: "bkt")
            let report = try await server.runLifecycle(now: Date().addingTimeInterval(3 * 86_400))
            #expect(report.protected.contains("bkt/doc?versionId=\(v1)"))
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "doc", versionId: v1))

            try await client.putObjectLegalHold(.off, bucketName: "bkt", objectKey: "doc", versionId: v1)
            // Still under the default GOVERNANCE retention: only a bypassing request deletes it.
            let refused = await serverError {
                _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "doc", versionId: v1))
            }
            #expect(refused?.code == "FileImmutable")
            let status = try await client.invoke(
                OSSOperation(
                    name: "DeleteObject", method: "DELETE", bucket: "bkt", key: "doc", query: ["versionId": v1],
                    headers: ["x-oss-bypass-governance-retention": "true"])
            ) { $0.status }
            #expect(status == 204)
            #expect(await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "doc", versionId: v1))
            }?.code == "NoSuchVersion")
        }
    }

    @Test func appendIsRefusedUnderObjectWorm() async throws {
        try await withServerAndClient { _, client in
            _ = try await Self.prepared(client)
            let refused = await serverError {
                _ = try await client.appendObject(
                    OSSAppendObjectRequest(bucketName: "bkt", objectKey: "log", appendPosition: 0, source: .data(Data("x".utf8))))
            }
            #expect(refused?.statusCode == 409)
            #expect(await serverError {
                _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "log"))
            }?.statusCode == 404)
        }
    }
}
