import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: a CompleteMultipartUpload whose answer is lost")
struct ResumableUploadLostCompleteTests {
    static let size = 4 * Int(ruPartSize) + 321

    @Test(
        "the server completed the upload but the answer was lost: the retry's NoSuchUpload adopts the object",
        arguments: [false, true])
    func lostCompleteAnswerAdoptsTheObject(contentMD5: Bool) async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 501)
        try scratch.write(bytes)
        let fault = try LocalOSSFaultRule(parsing: "CompleteMultipartUpload:nth=1:dropreply")
        try await withServerAndClient(faults: [fault]) { server, client in
            var request = ruRequest("lost.bin", scratch)
            request.sendContentMD5 = contentMD5
            let result = try await client.resumableUpload(request)
            let stats = await server.stats()
            #expect(stats.faultsInjected == 1)
            #expect(stats[.completeMultipartUpload].requests == 2, "the first answer was lost, the retry said NoSuchUpload")
            // No second upload: one initiate, every part sent once.
            #expect(stats[.initiateMultipartUpload].requests == 1)
            #expect(stats[.uploadPart].requestBodyBytes == Int64(Self.size))
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.totalBytes == Int64(Self.size))
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "lost.bin"))
            #expect(result.eTag == head.eTag)
            #expect(try await ruObject(client, "lost.bin") == bytes)
            #expect(try await ruUploads(client, "lost.bin").isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("NoSuchUpload at Complete with another object under the key: a new upload, as before")
    func noSuchUploadWithAnotherObjectStartsOver() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 502)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            // Another writer's object of the same size sits under the key; Complete then says NoSuchUpload.
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "other.bin", data: Data(patternBytes(Self.size, seed: 503))))
            await server.addFault(try LocalOSSFaultRule(parsing: "CompleteMultipartUpload:nth=1:status=404:code=NoSuchUpload"))
            let result = try await client.resumableUpload(ruRequest("other.bin", scratch))
            let stats = await server.stats()
            #expect(stats[.initiateMultipartUpload].requests == 2, "the foreign object was not adopted")
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try await ruObject(client, "other.bin") == bytes)
        }
    }

    @Test("a record of every part whose upload was completed (the process died awaiting the answer) is adopted")
    func recordOfACompletedUploadIsAdopted() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 504)
        try scratch.write(bytes)
        let saved = scratch.root.appendingPathComponent("saved.record")
        try await withServerAndClient { server, client in
            // Keep a copy of the record as it is when Complete is sent (held up by the server for a moment).
            await server.addFault(
                LocalOSSFaultRule(operation: .completeMultipartUpload, action: .delay(milliseconds: 500), times: 1))
            async let uploaded = client.resumableUpload(ruRequest("died.bin", scratch))
            while await server.stats()[.completeMultipartUpload].requests == 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let recordName = try #require(scratch.records().first)
            try FileManager.default.copyItem(atPath: scratch.recordDirectory + "/" + recordName, toPath: saved.path)
            let first = try await uploaded
            #expect(scratch.records().isEmpty)
            // As if the process had died after sending Complete: the record is back, the upload is gone.
            try FileManager.default.copyItem(atPath: saved.path, toPath: scratch.recordDirectory + "/" + recordName)
            #expect(scratch.records().count == 1)
            await server.resetStats()
            let second = try await client.resumableUpload(ruRequest("died.bin", scratch))
            let stats = await server.stats()
            #expect(stats[.listParts].requests == 1)
            #expect(stats[.initiateMultipartUpload].requests == 0, "no new upload")
            #expect(stats[.uploadPart].requests == 0, "nothing sent again")
            #expect(second.uploadId == first.uploadId)
            #expect(second.resumedBytes == Int64(Self.size))
            #expect(second.crc64 == CRC64.checksum(bytes))
            #expect(scratch.records().isEmpty)
        }
    }
}
