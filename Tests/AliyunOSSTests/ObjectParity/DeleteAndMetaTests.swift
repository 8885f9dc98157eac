import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("DeleteMultipleObjects, doesObjectExist and getObjectMeta against the local server")
struct DeleteAndMetaTests {
    @Test func deleteMultipleQuietVerboseAndBatched() async throws {
        try await withServerAndClient { _, client in
            let keys = ["a b", "c+d&e", "ünï/文件", "tab\there", "x%41"]
            for key in keys {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data([1])))
            }
            let verbose = try await client.deleteMultipleObjects(
                OSSDeleteMultipleObjectsRequest(bucketName: "bkt", keys: Array(keys.prefix(3)) + ["missing"]))
            #expect(Set(verbose.deletedObjects) == Set(Array(keys.prefix(3)) + ["missing"]))
            let quiet = try await client.deleteMultipleObjects(
                OSSDeleteMultipleObjectsRequest(bucketName: "bkt", keys: Array(keys.suffix(2)), quiet: true))
            #expect(quiet.deletedObjects.isEmpty)
            for key in keys { #expect(try await client.doesObjectExist(inBucket: "bkt", objectKey: key) == false) }

            let tooMany = await clientErrorCode {
                _ = try await client.deleteMultipleObjects(
                    OSSDeleteMultipleObjectsRequest(bucketName: "bkt", keys: (0..<1001).map { "k\($0)" }))
            }
            #expect(tooMany == .invalidArgument)

            let control = "ctl/a\u{1}b"
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: control, data: Data([1])))
            let refused = await clientErrorCode {
                _ = try await client.deleteMultipleObjects(OSSDeleteMultipleObjectsRequest(bucketName: "bkt", keys: [control]))
            }
            #expect(refused == .invalidArgument, "XML would drop the control character and delete another key")
            #expect(try await client.deleteObjects([control], inBucket: "bkt") == 1)
            #expect(try await client.doesObjectExist(inBucket: "bkt", objectKey: control) == false)

            let many = (0..<1203).map { "many/\($0)" }
            for key in many.prefix(5) + many.suffix(5) {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data([2])))
            }
            #expect(try await client.deleteObjects(many, inBucket: "bkt") == 1203)
            let left = try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: "bkt", prefix: "many/"))
            #expect(left.contents.isEmpty)
        }
    }

    @Test func existsAndObjectMeta() async throws {
        try await withServerAndClient { _, client in
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "m", data: Data(patternBytes(777))))
            #expect(try await client.doesObjectExist(inBucket: "bkt", objectKey: "m"))
            #expect(try await client.doesObjectExist(inBucket: "bkt", objectKey: "nope") == false)
            let meta = try await client.getObjectMeta(OSSGetObjectMetaRequest(bucketName: "bkt", objectKey: "m"))
            #expect(meta.contentLength == 777)
            #expect(meta.eTag == put.eTag)
            #expect(meta.lastModified != nil)
            let invalid = await clientErrorCode { _ = try await client.doesObjectExist(inBucket: "bkt", objectKey: "") }
            #expect(invalid == .invalidArgument)
        }
    }

    @Test func otherFailuresThrowFromDoesObjectExist() async throws {
        try await withServerAndClient(faults: [.init(operation: .headObject, action: .status(403, code: "AccessDenied"))]) { _, client in
            let error = await serverError { _ = try await client.doesObjectExist(inBucket: "bkt", objectKey: "m") }
            #expect(error?.statusCode == 403)
        }
    }
}
