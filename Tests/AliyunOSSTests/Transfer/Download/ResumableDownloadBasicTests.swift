import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableDownload: whole objects, ranges and edges")
struct ResumableDownloadBasicTests {
    @Test("a multi-part object arrives byte-identical with the object's CRC-64", arguments: [OSSSignatureVersion.v1, .v4])
    func wholeObject(version: OSSSignatureVersion) async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_000_000, seed: 7)
        try await withServerAndClient(version: version) { server, client in
            try await rdPut(client, "whole.bin", bytes)
            await server.resetStats()
            let log = RDProgressLog()
            let result = try await client.resumableDownload(rdRequest("whole.bin", scratch, progress: log.handler()))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.objectCRC64 == CRC64.checksum(bytes))
            #expect(result.totalBytes == Int64(bytes.count))
            #expect(result.resumedBytes == 0)
            #expect(result.partSize == rdPartSize)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "whole.bin"))
            #expect(result.eTag == head.eTag)
            // 10 parts of 100 KB, each fetched exactly once; nothing left behind.
            let stats = await server.stats()[.getObject]
            #expect(stats.requests == 10)
            #expect(stats.responseBodyBytes == Int64(bytes.count))
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
            log.verifyMonotonic(expected: Int64(bytes.count))
            #expect(log.reports.count == 10)
        }
    }

    @Test("without a record directory the download works and leaves nothing behind")
    func withoutRecord() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(350_000, seed: 8)
        try await withServerAndClient { _, client in
            try await rdPut(client, "norecord.bin", bytes)
            let result = try await client.resumableDownload(rdRequest("norecord.bin", scratch, record: false, threads: 2))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    @Test("an existing destination file is replaced")
    func replacesDestination() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(150_000, seed: 9)
        try Data(repeating: 0xAB, count: 500_000).write(to: scratch.destination)
        try await withServerAndClient { _, client in
            try await rdPut(client, "replace.bin", bytes)
            _ = try await client.resumableDownload(rdRequest("replace.bin", scratch))
            #expect(try scratch.destinationBytes() == bytes)
        }
    }

    @Test("sub-ranges: closed, open-ended, and an end past the object (truncated)")
    func subRanges() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(700_000, seed: 10)
        try await withServerAndClient { server, client in
            try await rdPut(client, "range.bin", bytes)
            let cases: [(OSSObjectRange, Range<Int>)] = [
                (.closed(123_457, 456_788), 123_457..<456_789),
                (.from(500_001), 500_001..<700_000),
                (.closed(650_000, 9_999_999), 650_000..<700_000),
                (.closed(0, 0), 0..<1),
                (.closed(699_999, 699_999), 699_999..<700_000),
            ]
            for (range, expected) in cases {
                await server.resetStats()
                let result = try await client.resumableDownload(rdRequest("range.bin", scratch, range: range))
                let slice = Array(bytes[expected])
                #expect(try scratch.destinationBytes() == slice, "range \(range.headerValue)")
                #expect(result.totalBytes == Int64(slice.count))
                #expect(result.rangeStart == Int64(expected.lowerBound))
                #expect(result.crc64 == CRC64.checksum(slice))
                #expect(result.objectCRC64 == CRC64.checksum(bytes))
                #expect(await rdGetBytes(server) == Int64(slice.count))
            }
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("a range starting past the object, or a suffix range, is invalidArgument")
    func invalidRanges() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            try await rdPut(client, "small.bin", patternBytes(1000))
            let past = await thrownClientError {
                _ = try await client.resumableDownload(rdRequest("small.bin", scratch, range: .from(1000)))
            }
            #expect(past?.code == .invalidArgument)
            let suffix = await thrownClientError {
                _ = try await client.resumableDownload(rdRequest("small.bin", scratch, range: .suffix(10)))
            }
            #expect(suffix?.code == .invalidArgument)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("edges: empty object, 1 byte, exact multiples of the part size, one byte more", arguments: [
        0, 1, 102_400, 204_800, 307_200, 204_801, 102_399,
    ])
    func edges(size: Int) async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(size, seed: UInt64(size) + 1)
        try await withServerAndClient { server, client in
            try await rdPut(client, "edge.bin", bytes)
            await server.resetStats()
            let result = try await client.resumableDownload(rdRequest("edge.bin", scratch, threads: 2))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.totalBytes == Int64(size))
            #expect(result.crc64 == CRC64.checksum(bytes))
            let parts = (size + Int(rdPartSize) - 1) / Int(rdPartSize)
            #expect(await server.stats()[.getObject].requests == Int64(parts))
            #expect(await rdGetBytes(server) == Int64(size))
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("a missing object is the server's NoSuchKey, with nothing left behind")
    func missingObject() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            do {
                _ = try await client.resumableDownload(rdRequest("absent.bin", scratch))
                Issue.record("expected an error")
            } catch let error as OSSServerError {
                #expect(error.statusCode == 404)
            }
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    @Test("bad arguments are invalidArgument")
    func badArguments() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            try await rdPut(client, "args.bin", patternBytes(10))
            for request in [
                rdRequest("args.bin", scratch, partSize: 0), rdRequest("args.bin", scratch, threads: 0),
                rdRequest("args.bin", scratch, threads: 1000), rdRequest("", scratch),
            ] {
                let error = await thrownClientError { _ = try await client.resumableDownload(request) }
                #expect(error?.code == .invalidArgument)
            }
        }
    }

    @Test("a part size below 100 KB is raised to 100 KB")
    func smallPartSizeRaised() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(250_000, seed: 11)
        try await withServerAndClient { server, client in
            try await rdPut(client, "raise.bin", bytes)
            await server.resetStats()
            let result = try await client.resumableDownload(rdRequest("raise.bin", scratch, partSize: 1000))
            #expect(result.partSize == 102_400)
            #expect(await server.stats()[.getObject].requests == 3)
            #expect(try scratch.destinationBytes() == bytes)
        }
    }

    @Test("STS credentials (V4) and many threads on small parts")
    func stsManyThreads() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(4_000_000, seed: 12)  // 40 parts
        try await withServerAndClient(version: .v4, sts: true) { server, client in
            try await rdPut(client, "sts.bin", bytes)
            await server.resetStats()
            let log = RDProgressLog()
            let result = try await client.resumableDownload(
                rdRequest("sts.bin", scratch, threads: 16, progress: log.handler()))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.getObject].requests == 40)
            log.verifyMonotonic(expected: Int64(bytes.count))
        }
    }

    @Test("the same download recorded in two directories uses two temporary files")
    func temporaryFilePerRecordDirectory() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(500_000, seed: 13)
        try await withServerAndClient { _, client in
            try await rdPut(client, "twodirs.bin", bytes)
            for directory in [scratch.recordDirectory, scratch.recordDirectory + "-other"] {
                var run = OSSResumableDownloadRequest(
                    bucketName: "bkt", objectKey: "twodirs.bin", downloadToFileURL: scratch.destination,
                    partSize: rdPartSize, threadNum: 1, recordDirectoryPath: directory)
                let handle = run
                run.downloadProgress = { _, total, _ in if total >= rdPartSize { handle.cancel() } }
                let error = await thrownClientError { _ = try await client.resumableDownload(run) }
                #expect(error?.code == .taskCancelled)
            }
            #expect(try scratch.temporaryFiles().count == 2)
            let result = try await client.resumableDownload(rdRequest("twodirs.bin", scratch))
            #expect(result.resumedBytes == rdPartSize)
            #expect(try scratch.destinationBytes() == bytes)
            #expect(try scratch.temporaryFiles().count == 1)
        }
    }
}
