import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// Service and bucket basics against the local server: ListBuckets filtered by tag and its paginator,
/// DescribeRegions, and the operations families' refusals as the SDK reports them.
@Suite("Bucket basics: ListBuckets by tag, its pages, DescribeRegions")
struct BucketBasicsTests {
    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func listBucketsFiltersByTagAndPages(_ version: OSSSignatureVersion) async throws {
        try await withServerAndClient(version: version, extraBuckets: ["tag-a", "tag-b", "tag-c"]) { _, client in
            try await client.putBucketConfiguration(OSSBucketTagging(tags: [OSSTag(key: "team", value: "red")]), bucketName: "tag-a")
            try await client.putBucketConfiguration(OSSBucketTagging(tags: [OSSTag(key: "team", value: "blue")]), bucketName: "tag-b")
            let team = try await client.listBuckets(OSSListBucketsRequest(tagKey: "team")).buckets.map(\.name)
            #expect(team == ["tag-a", "tag-b"])
            let blue = try await client.listBuckets(OSSListBucketsRequest(tagKey: "team", tagValue: "blue")).buckets.map(\.name)
            #expect(blue == ["tag-b"])
            await #expect(throws: OSSClientError.self) { try await client.listBuckets(OSSListBucketsRequest(tagValue: "blue")) }

            var pages: [[String]] = []
            for try await page in client.listBucketsPaginator(OSSListBucketsRequest(maxKeys: 2)) {
                pages.append(page.buckets.map(\.name))
            }
            #expect(pages == [["bkt", "tag-a"], ["tag-b", "tag-c"]])
        }
    }

    @Test func describeRegionsNamesTheServersRegionAndRefusesAnUnknownOne() async throws {
        try await withServerAndClient { server, client in
            let all = try await client.describeRegions().regions
            #expect(all.first?.region == "oss-cn-hangzhou")
            #expect(all.first?.internetEndpoint == server.endpoint.host.map { "\($0):\(server.endpoint.port ?? 80)" })
            #expect(all.count > 1 && Set(all.map(\.region)).count == all.count)
            let one = try await client.describeRegions(region: "oss-cn-beijing").regions
            #expect(one.map(\.region) == ["oss-cn-beijing"])
            let unknown = await serverError { _ = try await client.describeRegions(region: "oss-xx-nowhere") }
            #expect(unknown?.code == "NoSuchRegion" && unknown?.statusCode == 404)
        }
    }

    @Test func namedConfigurationsPageAndAreRefusedAsOSSRefusesThem() async throws {
        try await withServerAndClient(extraBuckets: ["inv-dest"]) { _, client in
            for index in 0..<105 {
                let inventory = OSSInventoryConfiguration(
                    id: String(format: "inv-%03d", index), isEnabled: true,
                    destination: .init(.init(bucket: "acs:oss:::inv-dest")), schedule: .init(frequency: "Daily"))
                try await client.putBucketConfiguration(inventory, named: inventory.id, bucketName: "bkt")
            }
            var sizes: [Int] = []
            for try await page in client.listBucketConfigurationsPaginator(OSSInventoryConfiguration.self, bucketName: "bkt") {
                sizes.append(page.configurations.count)
            }
            #expect(sizes == [100, 5])
            try await client.deleteBucketConfiguration(OSSInventoryConfiguration.self, named: "inv-000", bucketName: "bkt")
            let deleted = await serverError {
                _ = try await client.getBucketConfiguration(OSSInventoryConfiguration.self, named: "inv-000", bucketName: "bkt")
            }
            #expect(deleted?.code == "NoSuchInventory" && deleted?.statusCode == 404)
            await #expect(throws: OSSClientError.self) {
                try await client.putBucketConfiguration(OSSHTTPSConfiguration(tls: .init(enable: true)), bucketName: "bkt")
            }
            let https = try await client.getBucketConfiguration(OSSHTTPSConfiguration.self, bucketName: "bkt").configuration
            #expect(https == OSSHTTPSConfiguration(tls: .init(enable: false)), "a bucket never configured answers TLS off")
        }
    }

    @Test func sealedAppendableObjectTakesNoMoreAppends() async throws {
        try await withServerAndClient { _, client in
            _ = try await client.appendObject(
                OSSAppendObjectRequest(bucketName: "bkt", objectKey: "log", appendPosition: 0, source: .data(Data(count: 10))))
            let early = await serverError { _ = try await client.sealAppendObject(bucketName: "bkt", objectKey: "log", position: 5) }
            #expect(early?.code == "PositionNotEqualToLength" && early?.statusCode == 409)
            let sealed = try await client.sealAppendObject(bucketName: "bkt", objectKey: "log", position: 10)
            #expect(sealed.sealedTime != nil)
            try await Task.sleep(for: .milliseconds(1100))
            #expect(try await client.sealAppendObject(bucketName: "bkt", objectKey: "log", position: 10).sealedTime == sealed.sealedTime)
            let more = await serverError {
                _ = try await client.appendObject(
                    OSSAppendObjectRequest(bucketName: "bkt", objectKey: "log", appendPosition: 10, source: .data(Data([1]))))
            }
            #expect(more?.code == "ObjectNotAppendable")
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "plain", data: Data([1])))
            let plain = await serverError { _ = try await client.sealAppendObject(bucketName: "bkt", objectKey: "plain", position: 1) }
            #expect(plain?.code == "ObjectNotAppendable")
        }
    }

    @Test func cleanRestoredObjectFreezesARestoredCopyAgain() async throws {
        try await withServerAndClient { _, client in
            var put = OSSPutObjectRequest(bucketName: "bkt", objectKey: "cold", data: Data([1, 2, 3]))
            put.setStorageClass(.archive)
            _ = try await client.putObject(put)
            let stale = await serverError { try await client.cleanRestoredObject(bucketName: "bkt", objectKey: "cold") }
            #expect(stale?.code == "ArchiveRestoreFileStale" && stale?.statusCode == 409)
            try await client.restoreObject(OSSRestoreObjectRequest(bucketName: "bkt", objectKey: "cold"))
            let head = OSSHeadObjectRequest(bucketName: "bkt", objectKey: "cold")
            var status = try await client.headObject(head).restoreStatus
            if status == .ongoing {
                let running = await serverError { try await client.cleanRestoredObject(bucketName: "bkt", objectKey: "cold") }
                // The restore may finish (1 s) between the two requests on a loaded machine.
                #expect(running == nil || running?.code == "ArchiveRestoreNotFinished")
            }
            for _ in 0..<100 where status == .ongoing {
                try await Task.sleep(for: .milliseconds(100))
                status = try await client.headObject(head).restoreStatus
            }
            if case .restored = status {
                try await client.cleanRestoredObject(bucketName: "bkt", objectKey: "cold")
            }
            #expect(try await client.headObject(head).restoreStatus == nil)
            let frozen = await serverError { _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "cold")) }
            #expect(frozen?.code == "InvalidObjectState")
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "warm", data: Data([1])))
            let warm = await serverError { try await client.cleanRestoredObject(bucketName: "bkt", objectKey: "warm") }
            #expect(warm?.code == "OperationNotSupported")
        }
    }
}
