import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Multipart operations against the local server")
struct MultipartOperationTests {
    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func uploadByHand(version: OSSSignatureVersion) async throws {
        try await withServerAndClient(version: version) { server, client in
            let partSize = 100 * 1024
            let bytes = patternBytes(partSize * 3 + 1234, seed: 11)
            let file = try makeTemporaryFile(bytes)
            defer { try? FileManager.default.removeItem(at: file) }
            let key = "multi/part file+1.bin"
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: key, contentType: "application/x-test"))
            #expect(initiated.objectKey == key)
            #expect(!initiated.uploadId.isEmpty)

            var uploaded: [OSSUploadPartResult] = []
            var offset: Int64 = 0
            var number = 1
            while offset < Int64(bytes.count) {
                let length = min(Int64(partSize), Int64(bytes.count) - offset)
                var request = OSSUploadPartRequest(
                    bucketName: "bkt", objectKey: key, uploadId: initiated.uploadId, partNumber: number, fileURL: file,
                    offset: offset, length: length)
                request.sendContentMD5 = number == 2
                let part = try await client.uploadPart(request)
                #expect(part.crc64 == CRC64.checksum(bytes[Int(offset)..<Int(offset + length)]))
                #expect(part.size == length)
                uploaded.append(part)
                offset += length
                number += 1
            }
            #expect(uploaded.count == 4)

            // One part per page: the paginator walks all four pages.
            var pages = 0
            var listed: [OSSPartInfo] = []
            for try await page in client.listPartsPaginator(
                OSSListPartsRequest(bucketName: "bkt", objectKey: key, uploadId: initiated.uploadId, maxParts: 1))
            {
                pages += 1
                #expect(page.parts.count == 1)
                listed.append(contentsOf: page.parts)
            }
            #expect(pages == 4)
            #expect(listed.map(\.partNumber) == [1, 2, 3, 4])
            #expect(listed.map(\.eTag) == uploaded.map(\.eTag))
            #expect(listed.map(\.crc64) == uploaded.map(\.crc64))
            #expect(listed.map(\.size) == uploaded.map(\.size))
            #expect(try await client.listAllParts(bucketName: "bkt", objectKey: key, uploadId: initiated.uploadId).count == 4)

            let uploads = try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt"))
            #expect(uploads.uploads.contains { $0.uploadId == initiated.uploadId && $0.objectKey == key })

            // Complete with the parts in reverse order: the client sorts them.
            let complete = try await client.completeMultipartUpload(
                OSSCompleteMultipartUploadRequest(
                    bucketName: "bkt", objectKey: key, uploadId: initiated.uploadId,
                    parts: uploaded.reversed().map { OSSPartInfo(partNumber: $0.partNumber, eTag: $0.eTag) }))
            let combined = CRC64.combine(parts: uploaded.map { (crc: $0.crc64 ?? 0, length: UInt64($0.size)) })
            #expect(complete.crc64 == combined)
            #expect(complete.crc64 == CRC64.checksum(bytes))
            #expect(complete.objectKey == key)
            #expect(complete.eTag != nil)

            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(head.objectType == "Multipart")
            #expect(head.contentLength == Int64(bytes.count))
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
            #expect(get.content == Data(bytes))
            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 4)
        }
    }

    @Test func abortAndMissingUploads() async throws {
        try await withServerAndClient { _, client in
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "a"))
            _ = try await client.uploadPart(
                OSSUploadPartRequest(
                    bucketName: "bkt", objectKey: "a", uploadId: initiated.uploadId, partNumber: 1,
                    source: .data(Data(patternBytes(1000)))))
            try await client.abortMultipartUpload(
                OSSAbortMultipartUploadRequest(bucketName: "bkt", objectKey: "a", uploadId: initiated.uploadId))
            let gone = await serverError {
                _ = try await client.listParts(
                    OSSListPartsRequest(bucketName: "bkt", objectKey: "a", uploadId: initiated.uploadId))
            }
            #expect(gone?.statusCode == 404 && gone?.code == "NoSuchUpload")
            let empty = await clientErrorCode {
                _ = try await client.listParts(OSSListPartsRequest(bucketName: "bkt", objectKey: "a", uploadId: ""))
            }
            #expect(empty == .nilUploadid)
            let badNumber = await clientErrorCode {
                _ = try await client.uploadPart(
                    OSSUploadPartRequest(
                        bucketName: "bkt", objectKey: "a", uploadId: "x", partNumber: 0, source: .data(Data())))
            }
            #expect(badNumber == .invalidArgument)
        }
    }

    @Test func completeRejectsAWrongETag() async throws {
        try await withServerAndClient { _, client in
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "w"))
            _ = try await client.uploadPart(
                OSSUploadPartRequest(
                    bucketName: "bkt", objectKey: "w", uploadId: initiated.uploadId, partNumber: 1,
                    source: .data(Data("x".utf8))))
            let error = await serverError {
                _ = try await client.completeMultipartUpload(
                    OSSCompleteMultipartUploadRequest(
                        bucketName: "bkt", objectKey: "w", uploadId: initiated.uploadId,
                        parts: [OSSPartInfo(partNumber: 1, eTag: "00000000000000000000000000000000")]))
            }
            #expect(error?.statusCode == 400)
            #expect(error?.code == "InvalidPart")
        }
    }
}
