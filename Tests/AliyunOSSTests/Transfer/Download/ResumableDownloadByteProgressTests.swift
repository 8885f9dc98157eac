import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableDownload: progress as bytes arrive")
struct ResumableDownloadByteProgressTests {
    static let partSize: Int64 = 2_621_440
    static let size = 2 * Int(partSize) + 300_000  // 3 parts

    @Test("the bar moves while parts are in flight; a part fetched again is not counted twice")
    func movesWithinPartsAndNeverCountsTwice() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 701)
        try await withServerAndClient { server, client in
            try await rdPut(client, "bytes.bin", bytes)
            // The second GET breaks off after 1.5 MB: the client retries it from the part's start.
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=2:drop=1500000"))
            await server.resetStats()
            let log = RDProgressLog()
            var request = rdRequest("bytes.bin", scratch, partSize: Self.partSize, threads: 2, progress: log.handler())
            request.progressGranularity = .bytes
            let result = try await client.resumableDownload(request)
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(await rdGetBytes(server) > Int64(Self.size), "a part was fetched twice")
            log.verifyMonotonic(expected: Int64(Self.size))
            #expect(log.reports.reduce(Int64(0)) { $0 + $1.step } == Int64(Self.size), "each byte counted once")
            #expect(log.reports.allSatisfy { $0.total <= Int64(Self.size) })
            #expect(log.reports.count > 3, "more reports than parts: \(log.reports.count)")
        }
    }
}
