import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: fresh uploads")
struct ResumableUploadBasicTests {
    @Test("a fresh upload is byte-identical, CRC-checked, with monotonic progress; the record is removed", arguments: [true, false])
    func freshUpload(withRecord: Bool) async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_000_000, seed: 3)  // 9 full parts and a short one
        try scratch.write(bytes)
        try await withServerAndClient(version: .v4) { server, client in
            let log = RUProgressLog()
            let result = try await client.resumableUpload(
                ruRequest("fresh.bin", scratch, record: withRecord, progress: log.handler()))
            #expect(try await ruObject(client, "fresh.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.resumedBytes == 0)
            #expect(result.totalBytes == 1_000_000)
            #expect(result.partSize == ruPartSize)
            #expect(!result.requestId.isEmpty)
            log.verify(expected: 1_000_000)
            #expect(await ruPartBytes(server) == 1_000_000)
            #expect(await server.stats()[.uploadPart].requests == 10)
            #expect(scratch.records().isEmpty)
            #expect(try await ruUploads(client, "fresh.bin").isEmpty)
        }
    }

    @Test("edge sizes: empty file, one byte, an exact multiple of the part size")
    func edgeSizes() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            for (index, size) in [0, 1, 3 * Int(ruPartSize)].enumerated() {
                let bytes = patternBytes(size, seed: UInt64(index + 10))
                try scratch.write(bytes)
                let key = "edge-\(size).bin"
                let result = try await client.resumableUpload(ruRequest(key, scratch))
                #expect(try await ruObject(client, key) == bytes)
                #expect(result.crc64 == CRC64.checksum(bytes))
                #expect(result.totalBytes == Int64(size))
            }
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("content type and metadata reach the object")
    func metadata() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try scratch.write(patternBytes(150_000))
        try await withServerAndClient { _, client in
            var request = ruRequest("meta.bin", scratch)
            request.contentType = "application/x-test"
            request.completeMetaHeader = ["x-oss-meta-origin": "resumable", "Cache-Control": "no-cache"]
            _ = try await client.resumableUpload(request)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "meta.bin"))
            #expect(head.headers["content-type"] == "application/x-test")
            #expect(head.headers["x-oss-meta-origin"] == "resumable")
        }
    }

    @Test("invalid arguments and unreadable files are precise errors")
    func invalidInput() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            var missing = ruRequest("x", scratch)
            missing.uploadingFileURL = scratch.root.appendingPathComponent("missing.bin")
            #expect(await thrownClientError { _ = try await client.resumableUpload(missing) }?.code == .fileCantRead)
            try scratch.write([1, 2, 3])
            var threads = ruRequest("x", scratch)
            threads.threadNum = 0
            #expect(await thrownClientError { _ = try await client.resumableUpload(threads) }?.code == .invalidArgument)
            var part = ruRequest("x", scratch)
            part.partSize = 0
            #expect(await thrownClientError { _ = try await client.resumableUpload(part) }?.code == .invalidArgument)
        }
    }

    @Test("a part size under 100 KB is refused for a larger file and fine for a file of one part (the iOS rule)")
    func minimumPartSize() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try scratch.write(patternBytes(250_000, seed: 8))
        try await withServerAndClient { server, client in
            var request = ruRequest("small.bin", scratch)
            request.partSize = 1000
            #expect(await thrownClientError { _ = try await client.resumableUpload(request) }?.code == .invalidArgument)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0)

            let bytes = patternBytes(102_400, seed: 8)
            try scratch.write(bytes)
            let result = try await client.resumableUpload(request)
            #expect(result.partSize == 102_400)
            #expect(await server.stats()[.uploadPart].requests == 1)
            #expect(try await ruObject(client, "small.bin") == bytes)
        }
    }
}
