import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: the upload vanishes while it runs")
struct ResumableUploadVanishedTests {
    @Test("aborted by someone else mid-upload (NoSuchUpload on UploadPart): a new upload completes the object")
    func abortedMidUpload() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_024_000, seed: 41)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 50)))
            var request = ruRequest("vanish.bin", scratch, threads: 1)
            request.uploadProgress = RUProgressLog().handler { count in
                guard count == 3 else { return }
                // Someone else aborts the upload while parts are still being sent.
                Task {
                    let page = try await client.listMultipartUploads(
                        OSSListMultipartUploadsRequest(bucketName: "bkt", prefix: "vanish.bin"))
                    for upload in page.uploads {
                        try await client.abortMultipartUpload(
                            OSSAbortMultipartUploadRequest(bucketName: "bkt", objectKey: "vanish.bin", uploadId: upload.uploadId))
                    }
                }
            }
            let result = try await client.resumableUpload(request)
            #expect(try await ruObject(client, "vanish.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.initiateMultipartUpload].requests == 2)
            #expect(await server.stats()[.abortMultipartUpload].requests == 1)
            #expect(scratch.records().isEmpty)
            #expect(try await ruUploads(client, "vanish.bin").isEmpty)
        }
    }
}
