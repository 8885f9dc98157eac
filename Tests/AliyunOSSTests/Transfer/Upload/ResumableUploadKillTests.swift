import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("resumableUpload: kill -9 and resume in another process")
struct ResumableUploadKillTests {
    @Test(
        "kill -9 mid-upload at several points, resume here: identical object, at most threads × partSize re-sent",
        arguments: [4, 15, 30])
    func killAndResume(killAfterParts: Int) async throws {
        let binary = try #require(sampleBinary("resumable-upload"), "build the samples first: swift build --package-path Samples")
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(4_096_000, seed: UInt64(60 + killAfterParts))  // 40 parts of 100 KB
        try scratch.write(bytes)
        let threads = 2
        try await withServerAndClient { server, client in
            // Slow the parts down so the child is surely mid-upload when it is killed.
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 40)))
            let process = try launchSample(binary, against: server, [
                "--key", "kill.bin", "--file", scratch.source.path, "--checkpoint-dir", scratch.recordDirectory,
                "--part-size", String(ruPartSize), "--threads", String(threads), "--signature-version", "v4",
                "--region", "cn-hangzhou", "--keep-upload-on-cancel",
            ])

            var waited = 0
            while await ruPartBytes(server) < Int64(killAfterParts) * ruPartSize, process.isRunning, waited < 6000 {
                try await Task.sleep(for: .milliseconds(5))
                waited += 1
            }
            #expect(process.isRunning, "the child finished or died before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            #expect(process.terminationReason == .uncaughtSignal)

            // Requests the child had already written into the socket may still be finishing on the server (the
            // kernel delivers what was sent before the kill): wait until the server's counters settle.
            // On a loaded machine the server can pause longer than one polling interval, so require the counters to
            // stay still for a full second (five polls in a row) before trusting them.
            var firstRun = await ruPartBytes(server)
            var stillPolls = 0
            for _ in 0..<100 where stillPolls < 5 {
                try await Task.sleep(for: .milliseconds(200))
                let now = await ruPartBytes(server)
                stillPolls = now == firstRun ? stillPolls + 1 : 0
                firstRun = now
            }
            #expect(firstRun < Int64(bytes.count))
            #expect(scratch.records().count == 1)

            await server.clearFaults()
            await server.resetStats()
            let result = try await client.resumableUpload(ruRequest("kill.bin", scratch, threads: threads))
            let secondRun = await ruPartBytes(server)
            #expect(try await ruObject(client, "kill.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.resumedBytes > 0)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0)
            // A request the dead child had fully written can still be read by the server after the counters were reset,
            // so it may be charged to this run: compare with >=, and bound the sum of both runs below.
            #expect(secondRun >= Int64(bytes.count) - result.resumedBytes)
            let resent = firstRun + secondRun - Int64(bytes.count)
            #expect(resent >= 0)
            #expect(resent <= Int64(threads) * ruPartSize, "sent again: \(resent) bytes")
            #expect(scratch.records().isEmpty)
            #expect(try await ruUploads(client, "kill.bin").isEmpty)
        }
    }
}
