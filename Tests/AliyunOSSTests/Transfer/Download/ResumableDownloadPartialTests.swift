import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSResumable
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-granular resume: a part stopped midway keeps its written prefix, and the resume fetches from its first
/// missing byte, whatever the part size.
@Suite("resumableDownload: resume at the byte, not the part")
struct ResumableDownloadPartialTests {
    static let partSize: Int64 = 1_048_576
    /// Three parts, the last one short.
    static let size = 3 * Int(partSize) - 1000

    /// A request for big parts, one at a time, with byte-level progress that pauses past `pauseAt` bytes.
    func pausingRequest(_ key: String, _ scratch: RDScratch, record: Bool, pauseAt: Int64) -> OSSResumableDownloadRequest {
        var request = rdRequest(key, scratch, record: record, partSize: Self.partSize, threads: 1)
        request.progressGranularity = .bytes
        let handle = request
        request.downloadProgress = { _, total, _ in if total >= pauseAt { handle.pause() } }
        return request
    }

    @Test("a pause midway through a part keeps its prefix; the resume fetches exactly the missing bytes", arguments: [true, false])
    func pauseMidPart(record: Bool) async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 811)
        try await withServerAndClient { server, client in
            try await rdPut(client, "mid.bin", bytes)
            let pauseAt = Self.partSize + Self.partSize * 6 / 10
            let paused = await thrownClientError {
                _ = try await client.resumableDownload(pausingRequest("mid.bin", scratch, record: record, pauseAt: pauseAt))
            }
            #expect(paused?.code == .taskPaused, "\(String(describing: paused))")
            let token = try #require(paused?.resumeToken)
            // Part 1 is done; part 2 stopped midway with most of what it had written kept.
            #expect(token.parts.map(\.number) == [1])
            #expect(token.bytesDone > Self.partSize, "only whole parts were kept: \(token.bytesDone)")
            #expect(token.bytesDone < 2 * Self.partSize)
            #expect(record ? scratch.records().count == 1 : scratch.records().isEmpty)

            await server.resetStats()
            let resumed = rdRequest("mid.bin", scratch, record: record, partSize: Self.partSize, threads: 1)
            let result = try await (record
                ? client.resumableDownload(resumed) : client.resumableDownload(resumed, resumingFrom: token))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.resumedBytes == token.bytesDone)
            // The paused run had one request in flight, counted before the reset: the resume asked for the rest only.
            #expect(await rdGetBytes(server) == Int64(bytes.count) - token.bytesDone)
            #expect(scratch.records().isEmpty)
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    @Test("kill -9 while two big parts are midway: the resume fetches again only what was not yet recorded")
    func killMidParts() async throws {
        let binary = try #require(
            sampleBinary("resumable-download"), "build the samples first: swift build --package-path Samples")
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let partSize: Int64 = 4 * 1_048_576
        let threads = 2
        let bytes = patternBytes(2 * Int(partSize) + 123_456, seed: 812)
        let sentBeforeStall = 1_500_000
        try await withServerAndClient { server, client in
            try await rdPut(client, "kill-mid.bin", bytes)
            await server.resetStats()
            // The first two parts send 1.5 MB each, then the server holds them: the child is surely midway.
            await server.addFault(
                LocalOSSFaultRule(operation: .getObject, action: .stall(afterBytes: sentBeforeStall), times: threads))
            let process = try launchSample(binary, against: server, [
                "--key", "kill-mid.bin", "--file", scratch.destination.path, "--checkpoint-dir", scratch.recordDirectory,
                "--part-size", String(partSize), "--threads", String(threads),
            ])
            // Wait until the child recorded most of what it received, then kill it.
            var recorded: Int64 = 0
            for _ in 0..<1000 where recorded < Int64(threads) * 1_048_576 {
                try await Task.sleep(for: .milliseconds(10))
                recorded = scratch.recordedDownload()?.bytesDone ?? 0
            }
            #expect(process.isRunning, "the child finished or died before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            let record = try #require(scratch.recordedDownload())
            #expect(record.parts.isEmpty && record.partials.count == threads, "\(record.partials)")
            let written = await server.stats()[.getObject].responseBodyBytesWritten

            await server.clearFaults()
            await server.resetStats()
            let result = try await client.resumableDownload(
                rdRequest("kill-mid.bin", scratch, partSize: partSize, threads: threads))
            #expect(try scratch.destinationBytes() == bytes)
            // The record, and the checkpoint journal beside it for what was written after the record's last save.
            #expect(result.resumedBytes >= record.bytesDone)
            let fetched = await rdGetBytes(server)
            #expect(fetched == Int64(bytes.count) - result.resumedBytes)
            // Fetched twice: what the dead child received but had not recorded (one checkpoint interval per part,
            // plus a chunk), nothing like the 2 × 4 MiB of whole parts.
            let refetched = written + fetched - Int64(bytes.count)
            #expect(refetched >= 0)
            #expect(refetched <= Int64(threads) * 512 * 1024, "fetched again: \(refetched) bytes")
            #expect(scratch.records().isEmpty)
        }
    }
}

extension RDScratch {
    /// The download record in the record directory, if one is there and reads.
    func recordedDownload() -> OSSDownloadRecord? {
        guard let name = records().first,
            let data = FileManager.default.contents(atPath: recordDirectory + "/" + name)
        else { return nil }
        return try? OSSRecordCodec.decode(OSSDownloadRecord.self, from: Array(data))
    }
}
