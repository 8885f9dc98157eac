import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Server-side copies against the local server")
struct CopyOperationTests {
    @Test func copyKeepsOrReplacesMetadataAcrossBuckets() async throws {
        try await withServerAndClient(extraBuckets: ["other"]) { _, client in
            let key = "src/ünï cödé+a=b&c~%?.txt"
            let bytes = patternBytes(5000)
            let put = try await client.putObject(
                OSSPutObjectRequest(
                    bucketName: "bkt", objectKey: key, source: .data(Data(bytes)), contentType: "text/plain",
                    metadata: ["color": "Blue"]))
            let copied = try await client.copyObject(
                OSSCopyObjectRequest(sourceBucketName: "bkt", sourceObjectKey: key, bucketName: "other", objectKey: "dst/copy"))
            #expect(copied.eTag == put.eTag)
            #expect(copied.lastModified != nil)
            #expect(copied.crc64 == CRC64.checksum(bytes))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "other", objectKey: "dst/copy"))
            #expect(head.contentType == "text/plain")
            #expect(head.metadata == ["color": "Blue"])
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "other", objectKey: "dst/copy"))
            #expect(get.content.map(Array.init) == bytes)

            _ = try await client.copyObject(
                OSSCopyObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: key, bucketName: "bkt", objectKey: "replaced",
                    contentType: "image/png", metadata: ["shape": "round"]))
            let replaced = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "replaced"))
            #expect(replaced.contentType == "image/png")
            #expect(replaced.metadata == ["shape": "round"])
        }
    }

    @Test func copyConditionsAndMissingSources() async throws {
        try await withServerAndClient { _, client in
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "s", data: Data("x".utf8)))
            func copy(_ conditions: OSSCopySourceConditions, source: String = "s", bucket: String = "bkt") async
                -> OSSServerError?
            {
                await serverError {
                    _ = try await client.copyObject(
                        OSSCopyObjectRequest(
                            sourceBucketName: bucket, sourceObjectKey: source, bucketName: "bkt", objectKey: "d",
                            conditions: conditions))
                }
            }
            #expect(await copy(.init(ifMatch: put.eTag)) == nil)
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "d"))
            #expect(await copy(.init(ifMatch: "\"0000\""))?.code == "PreconditionFailed")
            #expect(await copy(.init(ifUnmodifiedSince: Date(timeIntervalSinceNow: -3600)))?.statusCode == 412)
            #expect(await copy(.init(ifNoneMatch: put.eTag))?.statusCode == 304)
            #expect(await copy(.init(ifModifiedSince: Date(timeIntervalSinceNow: 3600)))?.statusCode == 304)
            let missing = await serverError {
                _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "d"))
            }
            #expect(missing?.statusCode == 404, "a failed copy condition writes nothing")
            #expect(await copy(.init(ifNoneMatch: "\"0000\"")) == nil)
            #expect(await copy(.init(ifModifiedSince: Date(timeIntervalSinceNow: -3600))) == nil)
            #expect(await copy(.init(ifUnmodifiedSince: Date(timeIntervalSinceNow: 3600))) == nil)
            #expect(await copy(.init(), source: "missing")?.code == "NoSuchKey")
            #expect(await copy(.init(), bucket: "no-such-bucket")?.code == "NoSuchBucket")
            let invalid = await thrownClientError {
                _ = try await client.copyObject(
                    OSSCopyObjectRequest(sourceBucketName: "bkt", sourceObjectKey: "/abs", bucketName: "bkt", objectKey: "d"))
            }
            #expect(invalid?.code == .invalidArgument)
            #expect(invalid?.message.contains("InvalidObjectName") == true)
        }
    }

    @Test func uploadPartCopyRangesAndCopyLargeObject() async throws {
        try await withServerAndClient(extraBuckets: ["dest"]) { _, client in
            let bytes = patternBytes(1_000_000, seed: 3)
            _ = try await client.putObject(
                OSSPutObjectRequest(
                    bucketName: "bkt", objectKey: "big", source: .data(Data(bytes)), contentType: "video/mp4",
                    metadata: ["m": "1"]))
            let upload = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "ranged"))
            let part = try await client.uploadPartCopy(
                OSSUploadPartCopyRequest(
                    bucketName: "bkt", objectKey: "ranged", uploadId: upload.uploadId, partNumber: 1,
                    sourceBucketName: "bkt", sourceObjectKey: "big", sourceRange: 10...109))
            #expect(part.crc64 == CRC64.checksum(bytes[10...109]))
            let beyond = await serverError {
                _ = try await client.uploadPartCopy(
                    OSSUploadPartCopyRequest(
                        bucketName: "bkt", objectKey: "ranged", uploadId: upload.uploadId, partNumber: 2,
                        sourceBucketName: "bkt", sourceObjectKey: "big", sourceRange: 999_999...1_000_000))
            }
            #expect(beyond?.code == "InvalidArgument")
            _ = try await client.completeMultipartUpload(
                OSSCompleteMultipartUploadRequest(
                    bucketName: "bkt", objectKey: "ranged", uploadId: upload.uploadId,
                    parts: [OSSPartInfo(partNumber: 1, eTag: part.eTag)]))
            let ranged = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "ranged"))
            #expect(ranged.content.map(Array.init) == Array(bytes[10...109]))

            let large = try await client.copyLargeObject(
                OSSCopyLargeObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "big", bucketName: "dest", objectKey: "copy",
                    partSize: 200_000, threadNum: 3))
            #expect(large.partCount == 5)
            #expect(large.crc64 == CRC64.checksum(bytes))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "dest", objectKey: "copy"))
            #expect(head.objectType == "Multipart")
            #expect(head.contentType == "video/mp4")
            #expect(head.metadata == ["m": "1"])
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "dest", objectKey: "copy"))
            #expect(get.content.map(Array.init) == bytes)
            let uploads = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "dest"))
            #expect(uploads.uploads.isEmpty)

            let small = try await client.copyLargeObject(
                OSSCopyLargeObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "ranged", bucketName: "dest", objectKey: "small"))
            #expect(small.partCount == 0)
            #expect(small.crc64 == CRC64.checksum(bytes[10...109]))
        }
    }

    @Test func uploadPartCopyConditions() async throws {
        try await withServerAndClient { _, client in
            let bytes = patternBytes(1000, seed: 5)
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "s", data: Data(bytes)))
            let upload = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "d"))
            func partCopy(_ conditions: OSSCopySourceConditions) async -> OSSServerError? {
                await serverError {
                    _ = try await client.uploadPartCopy(
                        OSSUploadPartCopyRequest(
                            bucketName: "bkt", objectKey: "d", uploadId: upload.uploadId, partNumber: 1,
                            sourceBucketName: "bkt", sourceObjectKey: "s", conditions: conditions))
                }
            }
            let past = Date(timeIntervalSinceNow: -3600)
            let future = Date(timeIntervalSinceNow: 3600)
            let failing: [(OSSCopySourceConditions, Int)] = [
                (.init(ifMatch: "\"0000\""), 412), (.init(ifUnmodifiedSince: past), 412),
                (.init(ifNoneMatch: put.eTag), 304), (.init(ifModifiedSince: future), 304),
            ]
            for (conditions, status) in failing {
                let error = await partCopy(conditions)
                #expect(error?.statusCode == status)
                if status == 412 { #expect(error?.code == "PreconditionFailed") }
            }
            let parts = try await client.listParts(
                OSSListPartsRequest(bucketName: "bkt", objectKey: "d", uploadId: upload.uploadId))
            #expect(parts.parts.isEmpty, "a failed condition adds no part")
            #expect(await partCopy(.init(ifMatch: put.eTag, ifModifiedSince: past)) == nil)
            #expect(await partCopy(.init(ifNoneMatch: "\"0000\"", ifUnmodifiedSince: future)) == nil)
        }
    }
}
