import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Object operations against the local server")
struct ObjectOperationTests {
    @Test(arguments: [OSSSignatureVersion.v1, .v4], [false, true])
    func putGetHeadDeleteRoundTrip(version: OSSSignatureVersion, sts: Bool) async throws {
        try await withServerAndClient(version: version, sts: sts) { _, client in
            let key = "dir/sub dir/ünï 文件+a=b&c~%.txt"
            let bytes = patternBytes(10_000)
            let put = try await client.putObject(
                OSSPutObjectRequest(
                    bucketName: "bkt", objectKey: key, source: .data(Data(bytes)), contentType: "text/plain",
                    sendContentMD5: true, metadata: ["color": "Blue", "note": "two  spaces"]))
            #expect(put.crc64 == CRC64.checksum(bytes))
            #expect(put.eTag != nil)

            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(head.contentLength == 10_000)
            #expect(head.eTag == put.eTag)
            #expect(head.crc64 == CRC64.checksum(bytes))
            #expect(head.contentType == "text/plain")
            #expect(head.objectType == "Normal")
            #expect(head.metadata["color"] == "Blue")
            #expect(head.metadata["note"] == "two  spaces")
            #expect(head.lastModified != nil)

            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(get.content.map(Array.init) == bytes)
            #expect(get.statusCode == 200)
            #expect(get.receivedCRC64 == CRC64.checksum(bytes))

            try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: key))
            let missing = await serverError {
                _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
            }
            #expect(missing?.statusCode == 404)
            #expect(missing?.code == "NoSuchKey", "HEAD errors are decoded from x-oss-err")
            #expect(missing?.requestId.isEmpty == false)
        }
    }

    @Test func putFromFileIsStreamedAndReportsMonotonicProgress() async throws {
        try await withServerAndClient { server, client in
            let bytes = patternBytes(3 * 1024 * 1024 + 17, seed: 7)
            let file = try makeTemporaryFile(bytes)
            defer { try? FileManager.default.removeItem(at: file) }
            let seen = NIOLockedValueBox<[(Int64, Int64, Int64)]>([])
            var request = OSSPutObjectRequest(bucketName: "bkt", objectKey: "big.bin", fileURL: file)
            request.sendContentMD5 = true
            request.uploadProgress = { a, b, c in seen.withLockedValue { $0.append((a, b, c)) } }
            let put = try await client.putObject(request)
            #expect(put.crc64 == CRC64.checksum(bytes))
            let events = seen.withLockedValue { $0 }
            #expect(events.last?.1 == Int64(bytes.count))
            #expect(events.allSatisfy { $0.2 == Int64(bytes.count) })
            #expect(zip(events, events.dropFirst()).allSatisfy { $0.1 < $1.1 && $1.0 == $1.1 - $0.1 })
            let stats = await server.stats()
            #expect(stats[.putObject].requestBodyBytes == Int64(bytes.count))

            let dest = try temporaryURL()
            defer { try? FileManager.default.removeItem(at: dest) }
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "big.bin"), toFile: dest)
            #expect(get.contentLength == Int64(bytes.count))
            #expect(try Data(contentsOf: dest) == Data(bytes))
        }
    }

    @Test func ranges() async throws {
        try await withServerAndClient { _, client in
            let bytes = patternBytes(1000)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "r", data: Data(bytes)))
            func get(_ range: OSSObjectRange, standard: Bool = true) async throws -> OSSGetObjectResult {
                try await client.getObject(
                    OSSGetObjectRequest(bucketName: "bkt", objectKey: "r", range: range, standardRangeBehavior: standard))
            }
            let closed = try await get(.closed(10, 19))
            #expect(closed.statusCode == 206)
            #expect(closed.content.map(Array.init) == Array(bytes[10...19]))
            #expect(closed.contentRange == OSSContentRange("bytes 10-19/1000"))
            let from = try await get(.from(990))
            #expect(from.content.map(Array.init) == Array(bytes[990...]))
            let suffix = try await get(.suffix(5))
            #expect(suffix.content.map(Array.init) == Array(bytes[995...]))
            let truncated = try await get(.closed(500, 2000))
            #expect(truncated.content.map(Array.init) == Array(bytes[500...]))
            let beyond = await serverError { _ = try await get(.from(5000)) }
            #expect(beyond?.statusCode == 416)
            let legacy = try await get(.closed(500, 2000), standard: false)
            #expect(legacy.statusCode == 200, "legacy behaviour ignores an out-of-bounds range")
            #expect(legacy.content?.count == 1000)
            #expect(await clientErrorCode { _ = try await get(.closed(5, 1)) } == .invalidArgument)
        }
    }

    @Test func conditionalRequests() async throws {
        try await withServerAndClient { _, client in
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "c", data: Data("hello".utf8)))
            let etag = try #require(put.eTag)
            let ok = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "c", ifMatch: etag))
            #expect(ok.content == Data("hello".utf8))
            let failed = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "c", ifMatch: "\"0000\""))
            }
            #expect(failed?.statusCode == 412)
            #expect(failed?.code == "PreconditionFailed")
            let notModified = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "c", ifNoneMatch: etag))
            }
            #expect(notModified?.statusCode == 304)
            let future = Date().addingTimeInterval(3600)
            let past = Date(timeIntervalSince1970: 1_000_000_000)
            let modified = await serverError {
                _ = try await client.getObject(
                    OSSGetObjectRequest(bucketName: "bkt", objectKey: "c", ifModifiedSince: future))
            }
            #expect(modified?.statusCode == 304)
            let unmodified = await serverError {
                _ = try await client.getObject(
                    OSSGetObjectRequest(bucketName: "bkt", objectKey: "c", ifUnmodifiedSince: past))
            }
            #expect(unmodified?.statusCode == 412)
            let headOK = try await client.headObject(
                OSSHeadObjectRequest(bucketName: "bkt", objectKey: "c", ifModifiedSince: past))
            #expect(headOK.contentLength == 5)
        }
    }

    @Test func memoryCapStreamAndWriteAtOffset() async throws {
        try await withServerAndClient { _, client in
            let bytes = patternBytes(300_000, seed: 3)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "s", data: Data(bytes)))
            let capped = await clientErrorCode {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "s"), maxBytes: 1000)
            }
            #expect(capped == .invalidArgument)

            let streamed = try await client.withObjectStream(OSSGetObjectRequest(bucketName: "bkt", objectKey: "s")) {
                result, body in
                #expect(result.contentLength == 300_000)
                var collected: [UInt8] = []
                var chunks = 0
                for try await chunk in body {
                    collected.append(contentsOf: chunk)
                    chunks += 1
                }
                return (collected, chunks)
            }
            #expect(streamed.0 == bytes)
            #expect(streamed.1 >= 1)

            // Two ranged GETs fill one file at their offsets, as a resumable download does.
            let path = try temporaryURL().path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let second = try await client.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: "s", range: .closed(150_000, 299_999)), writingTo: path,
                at: 150_000)
            let first = try await client.getObject(
                OSSGetObjectRequest(bucketName: "bkt", objectKey: "s", range: .closed(0, 149_999)), writingTo: path, at: 0)
            #expect(first.statusCode == 206 && second.statusCode == 206)
            #expect(first.receivedCRC64 == CRC64.checksum(bytes[0..<150_000]))
            #expect(
                CRC64.combine(first.receivedCRC64 ?? 0, second.receivedCRC64 ?? 0, length2: 150_000)
                    == CRC64.checksum(bytes))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(bytes))
        }
    }

    @Test func errorsAreTyped() async throws {
        try await withServerAndClient { _, client in
            let noKey = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "missing"))
            }
            #expect(noKey?.statusCode == 404 && noKey?.code == "NoSuchKey")
            #expect(noKey?.requestId.isEmpty == false)
            let noBucket = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "nosuchbucket", objectKey: "k"))
            }
            #expect(noBucket?.code == "NoSuchBucket")
            let unreadable = await clientErrorCode {
                _ = try await client.putObject(
                    OSSPutObjectRequest(
                        bucketName: "bkt", objectKey: "k", fileURL: URL(fileURLWithPath: "/nonexistent/file")))
            }
            #expect(unreadable == .fileCantRead)
        }
    }

    @Test func wrongSecretIsSignatureDoesNotMatch() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: ["bkt"])) { server in
            let client = try OSSClient(
                endpoint: server.endpoint,
                credentialProvider: OSSStaticCredentialProvider(
                    accessKeyId: server.credentials.accessKeyId, accessKeySecret: "wrong"))
            let error = await serverError {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data()))
            }
            try await client.shutdown()
            #expect(error?.statusCode == 403)
            #expect(error?.code == "SignatureDoesNotMatch")
        }
    }

    @Test func networkErrorWhenNothingListens() async throws {
        var configuration = OSSClientConfiguration()
        configuration.retry = .init(maxRetryCount: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
        configuration.timeouts.connect = .seconds(1)
        let client = try OSSClient(
            endpoint: "http://127.0.0.1:1",
            credentialProvider: OSSStaticCredentialProvider(accessKeyId: "a", accessKeySecret: "b"),
            configuration: configuration)
        let code = await clientErrorCode {
            _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "b1c", objectKey: "k"))
        }
        try await client.shutdown()
        #expect(code == .networkError)
    }
}
