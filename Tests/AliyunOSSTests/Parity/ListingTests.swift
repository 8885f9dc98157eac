import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// GetBucket (ListObjects V1) and its paginator, the ListBuckets paginator, bucket info and location, and the
/// ordering and markers of ListMultipartUploads.
@Suite struct ListingTests {
    static let keys = [
        "a b.txt", "a+b", "a/1", "a/2", "a/3/x", "b", "c/d/e", "c/d/f", "ü/1", "zz%41", "~tilde",
    ]

    @Test func getBucketPagesFollowOSSOrderAndMarkers() async throws {
        try await withParityServer { _, client in
            for key in Self.keys {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(key.utf8)))
            }
            // Without a delimiter: every key in byte order, two per page.
            var listed: [String] = []
            var pages = 0
            for try await page in client.getBucketPaginator(OSSGetBucketRequest(bucketName: "bkt", maxKeys: 2)) {
                listed += page.contents.map(\.objectKey)
                pages += 1
            }
            let sorted = Self.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(listed == sorted)
            #expect(pages == (Self.keys.count + 1) / 2)

            // With "/": common prefixes appear once even when a page ends on one.
            var keys: [String] = []
            var prefixes: [String] = []
            for try await page in client.getBucketPaginator(
                OSSGetBucketRequest(bucketName: "bkt", delimiter: "/", maxKeys: 1))
            {
                keys += page.contents.map(\.objectKey)
                prefixes += page.commonPrefixes
                #expect(page.contents.count + page.commonPrefixes.count <= 1)
            }
            #expect(keys == ["a b.txt", "a+b", "b", "zz%41", "~tilde"])
            #expect(prefixes == ["a/", "c/", "ü/"])

            // A prefix and a marker.
            let page = try await client.getBucket(
                OSSGetBucketRequest(bucketName: "bkt", prefix: "a/", marker: "a/1", delimiter: "/"))
            #expect(page.contents.map(\.objectKey) == ["a/2"])
            #expect(page.commonPrefixes == ["a/3/"])
            #expect(page.prefix == "a/")
            #expect(page.marker == "a/1")
            #expect(!page.isTruncated)
            #expect(page.contents.first?.size == 3)
        }
    }

    @Test func getBucketRefusesBadPageSizes() async throws {
        try await withParityServer { _, client in
            let code = await clientErrorCode { _ = try await client.getBucket(OSSGetBucketRequest(bucketName: "bkt", maxKeys: 0)) }
            #expect(code == .invalidArgument)
            let missing = await serverError { _ = try await client.getBucket(OSSGetBucketRequest(bucketName: "nope-bucket")) }
            #expect(missing?.code == "NoSuchBucket")
        }
    }

    @Test func listBucketsPaginator() async throws {
        try await withParityServer(configureServer: { $0.buckets = ["bkt", "bkt-2", "bkt-3", "other"] }) { _, client in
            var names: [String] = []
            for try await page in client.listBucketsPaginator(OSSListBucketsRequest(prefix: "bkt", maxKeys: 1)) {
                #expect(page.buckets.count <= 1)
                names += page.buckets.map(\.name)
            }
            #expect(names == ["bkt", "bkt-2", "bkt-3"])
        }
    }

    @Test func bucketInfoReportsTheServersOwnAddress() async throws {
        try await withParityServer { server, client in
            let info = try await client.getBucketInfo(OSSGetBucketInfoRequest(bucketName: "bkt"))
            let authority = "\(server.endpoint.host ?? ""):\(server.port)"
            #expect(info.bucketName == "bkt")
            #expect(info.extranetEndpoint == authority)
            #expect(info.intranetEndpoint == authority)
            #expect(info.location == "oss-cn-hangzhou")
            #expect(info.region == "cn-hangzhou")
            #expect(info.acl == "private")
            #expect(info.creationDate != nil)
            // A client that follows the reported endpoint reaches the same server.
            let follower = try OSSClient(
                endpoint: "http://\(try #require(info.extranetEndpoint))", credentialProvider: server.credentials.provider)
            let location = try await follower.getBucketLocation(OSSGetBucketLocationRequest(bucketName: "bkt"))
            try await follower.shutdown()
            #expect(location.location == "oss-cn-hangzhou")
            let missing = await serverError { _ = try await client.getBucketInfo(OSSGetBucketInfoRequest(bucketName: "no-such")) }
            #expect(missing?.statusCode == 404)
        }
    }

    @Test func multipartUploadsListInKeyThenUploadIdOrder() async throws {
        try await withParityServer { _, client in
            var ids: [String] = []
            for _ in 0..<3 {
                ids.append(
                    try await client.initiateMultipartUpload(
                        OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "same")).uploadId)
            }
            for key in ["dir/a", "dir/b", "a b", "zz"] {
                _ = try await client.initiateMultipartUpload(OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: key))
            }
            var seen: [String] = []
            for try await page in client.listMultipartUploadsPaginator(
                OSSListMultipartUploadsRequest(bucketName: "bkt", maxUploads: 1))
            {
                seen += page.uploads.map { "\($0.objectKey)#\($0.uploadId)" }
            }
            let same = ids.sorted().map { "same#\($0)" }
            #expect(seen.map { $0.split(separator: "#").first.map(String.init) ?? "" } == ["a b", "dir/a", "dir/b", "same", "same", "same", "zz"])
            #expect(seen.filter { $0.hasPrefix("same#") } == same)

            // Under a delimiter, one common prefix even across pages.
            var keys: [String] = []
            var prefixes: [String] = []
            for try await page in client.listMultipartUploadsPaginator(
                OSSListMultipartUploadsRequest(bucketName: "bkt", delimiter: "/", maxUploads: 1))
            {
                keys += page.uploads.map(\.objectKey)
                prefixes += page.commonPrefixes
            }
            #expect(prefixes == ["dir/"])
            #expect(keys == ["a b", "same", "same", "same", "zz"])
        }
    }
}
