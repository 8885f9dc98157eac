import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Batch: kill -9 mid-batch, resume in this process")
struct BatchKillTests {
    @Test("SIGKILL mid-batch: the batch is listed as interrupted; resuming sends only what was not finished")
    func killAndResume() async throws {
        let binary = try #require(sampleBinary("sync-directory"), "build the samples first: swift build --package-path Samples")
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let files = try BatchResumeTests.makeTree(scratch)
        let smallCount = files.count - 1
        let jobs = 3
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .putObject, action: .delay(milliseconds: 60)))
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 150)))
            let process = try launchSample(binary, against: server, [
                "--prefix", "k", "--dir", scratch.source.path, "--checkpoint-dir", scratch.records, "--jobs", String(jobs),
                "--multipart-threshold", "200000", "--part-size", String(batchPartSize), "--threads", "2",
                "--region", "cn-hangzhou",
            ])
            try await BatchResumeTests.wait { await server.stats()[.putObject].requests >= 10 || !process.isRunning }
            #expect(process.isRunning, "the child finished or died before it could be killed")
            kill(process.processIdentifier, SIGKILL)
            while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
            #expect(process.terminationReason == .uncaughtSignal)
            // Let requests the child had written settle on the server before reading its counters.
            let firstRun = try await settledRequests(server, .putObject)

            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let listed = try await manager.batches()
            #expect(listed.count == 1)
            let info = try #require(listed.first)
            #expect(info.state == .interrupted)
            // The large file and the small ones the child had started: one per job at most.
            #expect(info.inFlight.contains("k/a-big.bin"))
            #expect(info.inFlight.count <= jobs)
            let journaled = info.counts.uploaded
            // (A child starved of CPU on a loaded machine may have journaled few of the files it sent.)
            #expect(journaled >= 1)
            // What the child stored, journaled or not (it may have finished files after its last journal entry).
            let stored = try await listKeys(client, prefix: "k/").filter { $0 != "k/a-big.bin" }.count

            await server.clearFaults()
            await server.resetStats()
            let batch = try await manager.resumeBatch(info.id)
            let report = try await batch.result()
            #expect(report.state == .completed)
            #expect(report.counts.doneInEarlierRuns == journaled)
            let stats = await server.stats()
            let secondRun = stats[.putObject].requests
            // No file the child stored is sent again, journaled or not (one HEAD checks those it had in flight).
            // (The child's own retries, which a starved child may make, are not the resume's business.)
            #expect(secondRun == Int64(smallCount - stored), "stored \(stored), journaled \(journaled), first run \(firstRun)")
            #expect(report.counts.doneInEarlierRuns + report.counts.uploaded == smallCount + 1)
            #expect(stats[.initiateMultipartUpload].requests == 0, "the large file resumes its multipart upload")
            for (path, bytes) in files {
                #expect(try await objectBytes(client, "k/" + path) == bytes, "\(path)")
            }
            #expect(try await manager.batches().isEmpty)
        }
    }
}
