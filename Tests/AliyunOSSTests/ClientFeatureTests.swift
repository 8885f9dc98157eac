import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Listing, buckets and custom signing against the local server")
struct ClientFeatureTests {
    @Test func listObjectsV2PaginatesAndDecodesKeys() async throws {
        try await withServerAndClient { _, client in
            let keys = ["a/1.txt", "a/2 two.txt", "a/sub/3+x.txt", "b/ü.txt", "c"]
            for key in keys {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(key.utf8)))
            }
            var all: [String] = []
            var pages = 0
            for try await page in client.listObjectsV2Paginator(OSSListObjectsV2Request(bucketName: "bkt", maxKeys: 2)) {
                pages += 1
                all.append(contentsOf: page.contents.map(\.objectKey))
            }
            #expect(all == keys)
            #expect(pages == 3)
            let delimited = try await client.listObjectsV2(
                OSSListObjectsV2Request(bucketName: "bkt", prefix: "a/", delimiter: "/"))
            #expect(delimited.contents.map(\.objectKey) == ["a/1.txt", "a/2 two.txt"])
            #expect(delimited.commonPrefixes == ["a/sub/"])
            #expect(delimited.contents.first?.size == 7)
        }
    }

    @Test func bucketLifecycle() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucket(OSSPutBucketRequest(bucketName: "new-bucket"))
            let listed = try await client.listBuckets()
            #expect(Set(listed.buckets.map(\.name)).isSuperset(of: ["bkt", "new-bucket"]))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "new-bucket", objectKey: "k", data: Data()))
            let notEmpty = await serverError {
                try await client.deleteBucket(OSSDeleteBucketRequest(bucketName: "new-bucket"))
            }
            #expect(notEmpty?.statusCode == 409 && notEmpty?.code == "BucketNotEmpty")
            try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "new-bucket", objectKey: "k"))
            try await client.deleteBucket(OSSDeleteBucketRequest(bucketName: "new-bucket"))
            let after = try await client.listBuckets()
            #expect(!after.buckets.map(\.name).contains("new-bucket"))
        }
    }

    @Test func customSignerSignsV1() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let secret = server.credentials.accessKeySecret
            let seen = NIOLockedValueBox<[String]>([])
            let provider = OSSCustomSignerCredentialProvider(accessKeyId: server.credentials.accessKeyId) { toSign in
                seen.withLockedValue { $0.append(toSign) }
                return OSSSignerV1.signature(stringToSign: toSign, secret: secret)
            }
            let client = try OSSClient(endpoint: server.endpoint, credentialProvider: provider)
            do {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "cs", data: Data("hi".utf8)))
                let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "cs"))
                #expect(get.content == Data("hi".utf8))
                // Presigning asks the signer too, as the iOS SDK does (it used to throw signFailed).
                let url = try await client.presignConstrainURL(bucket: "bkt", key: "cs", expiration: 60)
                #expect(url.contains("OSSAccessKeyId=\(server.credentials.accessKeyId)") && url.contains("Signature="))
                let (status, body) = try await PresignTests().send("GET", url)
                #expect(status == 200)
                #expect(body == Array("hi".utf8))
                try await client.shutdown()
            } catch {
                try? await client.shutdown()
                throw error
            }
            let strings = seen.withLockedValue { $0 }
            #expect(strings.count == 3)
            #expect(strings.last?.hasPrefix("GET\n\n\n") == true, "the URL's string to sign has its expiry as the date")
            #expect(strings.first?.hasPrefix("PUT\n\napplication/octet-stream\n") == true)
            #expect(strings.first?.hasSuffix("\n/bkt/cs") == true)
        }
    }

    @Test func refreshingProviderIsInvalidatedAndRefetched() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let good = server.credentials
            let calls = NIOLockedValueBox(0)
            let provider = OSSRefreshingCredentialProvider {
                let n = calls.withLockedValue { $0 += 1; return $0 }
                // The first token is wrong (as if revoked); the refreshed one works.
                return OSSFederationToken(
                    accessKeyId: good.accessKeyId, accessKeySecret: n == 1 ? "revoked" : good.accessKeySecret,
                    securityToken: nil, expiration: Date().addingTimeInterval(3600))
            }
            try await withOSSClient(endpoint: server.endpoint.absoluteString, credentialProvider: provider) { client in
                let error = await serverError {
                    _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "r", data: Data()))
                }
                #expect(error?.statusCode == 403)
                await provider.invalidate()
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "r", data: Data()))
            }
            #expect(calls.withLockedValue { $0 } == 2)
        }
    }
}

@Suite("Streamed GET failure handling")
struct StreamFailureTests {
    struct Stop: Error {}

    @Test func callerErrorsInTheStreamAreNotRetried() async throws {
        try await withServerAndClient { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "s", data: Data("abc".utf8)))
            do {
                try await client.withObjectStream(OSSGetObjectRequest(bucketName: "bkt", objectKey: "s")) { _, _ in
                    throw Stop()
                }
                Issue.record("expected an error")
            } catch let error as OSSClientError {
                #expect(error.code == .exceptionCaught)
                #expect(error.underlying is Stop)
            }
            #expect(await server.stats()[.getObject].requests == 1)
        }
    }

    @Test func droppedDownloadIsRetriedForCollectingVariants() async throws {
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .dropConnection(afterBytes: 1000))
        try await withServerAndClient(faults: [fault]) { server, client in
            let bytes = patternBytes(200_000, seed: 9)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d", data: Data(bytes)))
            let totals = NIOLockedValueBox<[Int64]>([])
            var request = OSSGetObjectRequest(bucketName: "bkt", objectKey: "d")
            request.downloadProgress = { _, total, _ in totals.withLockedValue { $0.append(total) } }
            let get = try await client.getObject(request)
            #expect(get.content == Data(bytes))
            #expect(await server.stats()[.getObject].requests == 2)
            let seen = totals.withLockedValue { $0 }
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
            #expect(seen.last == 200_000)
        }
    }

    @Test func droppedStreamIsANetworkErrorForTheCaller() async throws {
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .dropConnection(afterBytes: 1000))
        try await withServerAndClient(faults: [fault]) { server, client in
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "d", data: Data(patternBytes(200_000))))
            let code = await clientErrorCode {
                try await client.withObjectStream(OSSGetObjectRequest(bucketName: "bkt", objectKey: "d")) { _, body in
                    for try await _ in body {}
                }
            }
            #expect(code == .networkError || code == .networkingFailWithResponseCode0)
            #expect(await server.stats()[.getObject].requests == 1)
        }
    }
}
