import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: progress as bytes are sent")
struct ResumableUploadByteProgressTests {
    /// Parts of 2.5 MiB are streamed in 1 MiB chunks: several reports per part.
    static let partSize: Int64 = 2_621_440
    static let size = 2 * Int(partSize) + 300_000  // 3 parts

    func request(_ key: String, _ scratch: RUScratch, progress: OSSProgressHandler?) -> OSSResumableUploadRequest {
        var request = OSSResumableUploadRequest(
            bucketName: "bkt", objectKey: key, uploadingFileURL: scratch.source, partSize: Self.partSize, threadNum: 2,
            recordDirectoryPath: scratch.recordDirectory, deleteUploadIdOnCancelling: false, uploadProgress: progress)
        request.progressGranularity = .bytes
        return request
    }

    @Test("the bar moves while parts are in flight; a part sent again is not counted twice")
    func movesWithinPartsAndNeverCountsTwice() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 601)
        try scratch.write(bytes)
        // Part 2 arrives damaged: its CRC disagrees and it is sent again.
        let fault = try LocalOSSFaultRule(parsing: "UploadPart:nth=2:corrupt=1500000")
        try await withServerAndClient(faults: [fault]) { server, client in
            let log = RUProgressLog()
            let result = try await client.resumableUpload(request("bytes.bin", scratch, progress: log.handler()))
            #expect(result.crc64 == CRC64.checksum(bytes))
            let sent = await ruPartBytes(server)
            #expect(sent > Int64(Self.size), "a part was sent twice (\(sent) bytes for \(Self.size))")
            // Steps add up, never backwards, end exactly at the size: the re-sent part counted once.
            log.verify(expected: Int64(Self.size))
            #expect(log.reports.allSatisfy { $0.total <= Int64(Self.size) })
            #expect(log.reports.count > 3, "more reports than parts: \(log.reports.count)")
            // Some report fell strictly inside a part: the bar moved before the first part was confirmed.
            #expect(log.reports.contains { $0.total % Self.partSize != 0 && $0.total < Int64(Self.size) })
        }
    }

    @Test("a resumed upload starts with the bytes already on the server, then moves per byte")
    func resumedStartsFromTheServer() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 602)
        try scratch.write(bytes)
        try await withServerAndClient { _, client in
            // A first run confirms one part, then pauses.
            var first = request("resumed.bin", scratch, progress: nil)
            first.progressGranularity = .confirmedParts
            let handle = first
            first.uploadProgress = { _, _, _ in handle.pause() }
            let paused = await thrownClientError { _ = try await client.resumableUpload(first) }
            #expect(paused?.code == .taskPaused)

            let log = RUProgressLog()
            let result = try await client.resumableUpload(request("resumed.bin", scratch, progress: log.handler()))
            #expect(result.resumedBytes >= Self.partSize)
            log.verify(startingAt: result.resumedBytes, expected: Int64(Self.size))
            #expect(try await ruObject(client, "resumed.bin") == bytes)
        }
    }
}
