@testable import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `sequential` (iOS `OSSInitMultipartUploadRequest.sequential`, `sequentialMultipartUpload`): the upload is
/// initiated with `?sequential`, its parts go in ascending order, and the object gets its content's `Content-MD5`.
@Suite struct SequentialUploadTests {
    static func contentMD5(_ client: OSSClient, _ key: String) async throws -> String? {
        try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key)).headers["content-md5"]
    }

    @Test func initiateSendsSequentialAndTheServerKeepsTheOrder() async throws {
        try await withParityServer { _, client in
            let bytes = patternBytes(250_000)
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "seq.bin", sequential: true))
            func upload(_ number: Int, _ range: Range<Int>) async throws -> OSSUploadPartResult {
                try await client.uploadPart(
                    OSSUploadPartRequest(
                        bucketName: "bkt", objectKey: "seq.bin", uploadId: initiated.uploadId, partNumber: number,
                        source: .data(Data(bytes[range]))))
            }
            let first = try await upload(1, 0..<102_400)
            let second = try await upload(2, 102_400..<204_800)
            let outOfOrder = await serverError { _ = try await upload(1, 0..<102_400) }
            #expect(outOfOrder?.statusCode == 400, "a sequential upload refuses a part before the last one")
            #expect(outOfOrder?.code == "PartNotSequential", "OSS's code, which oss2 raises as PartNotSequential")
            let again = try await upload(2, 102_400..<204_800)  // the last part may be sent again (a retry)
            #expect(again.eTag == second.eTag)
            let third = try await upload(3, 204_800..<250_000)
            _ = try await client.completeMultipartUpload(
                OSSCompleteMultipartUploadRequest(
                    bucketName: "bkt", objectKey: "seq.bin", uploadId: initiated.uploadId,
                    parts: [first, second, third].map { OSSPartInfo(partNumber: $0.partNumber, eTag: $0.eTag) }))
            #expect(try await Self.contentMD5(client, "seq.bin") == OSSFileDigest.contentMD5(bytes))
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "seq.bin"))
            #expect(get.content.map(Array.init) == bytes)
        }
    }

    /// Fails without the fix: the resumable upload never sent `sequential`, so the object had no Content-MD5.
    @Test func aSequentialResumableUploadIsSequential() async throws {
        try await withParityServer { server, client in
            let bytes = patternBytes(350_000)
            let file = try makeTemporaryFile(bytes)
            defer { try? FileManager.default.removeItem(at: file) }
            var request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "seq-r.bin", uploadingFileURL: file, partSize: 102_400, threadNum: 4)
            request.sequential = true
            _ = try await client.resumableUpload(request)
            #expect(try await Self.contentMD5(client, "seq-r.bin") == OSSFileDigest.contentMD5(bytes))
            #expect(await server.stats()[.uploadPart].requests == 4)

            // A parallel multipart upload's object has no Content-MD5 (OSS documents its ETag as not an MD5).
            let parallel = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "par.bin", uploadingFileURL: file, partSize: 102_400)
            _ = try await client.resumableUpload(parallel)
            #expect(try await Self.contentMD5(client, "par.bin") == nil)
        }
    }

    /// A paused sequential upload resumed by the transfer manager, whose request is built from the record, stays
    /// sequential: the same upload id, its parts in order, the object's Content-MD5.
    @Test func aPausedSequentialUploadResumesSequentially() async throws {
        try await withParityServer { server, client in
            let bytes = patternBytes(450_000)
            let file = try makeTemporaryFile(bytes)
            let records = try temporaryURL()
            try FileManager.default.createDirectory(at: records, withIntermediateDirectories: true)
            defer {
                try? FileManager.default.removeItem(at: file)
                try? FileManager.default.removeItem(at: records)
            }
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            var request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "seq-p.bin", uploadingFileURL: file, partSize: 102_400,
                recordDirectoryPath: records.path)
            request.sequential = true
            let handle = request
            request.uploadProgress = { _, done, _ in if done >= 204_800 { handle.pause() } }
            let paused = await thrownClientError { [request] in _ = try await client.resumableUpload(request) }
            #expect(paused?.code == .taskPaused)
            await server.clearFaults()

            let manager = OSSTransferManager(client: client, recordDirectoryPath: records.path)
            let transfers = try await manager.transfers()
            let id = try #require(transfers.first?.id)
            _ = try await manager.resume(id)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1, "the paused upload was resumed")
            #expect(try await Self.contentMD5(client, "seq-p.bin") == OSSFileDigest.contentMD5(bytes))
        }
    }
}
