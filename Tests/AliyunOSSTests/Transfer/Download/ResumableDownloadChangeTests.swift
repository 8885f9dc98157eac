import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableDownload: the object changes")
struct ResumableDownloadChangeTests {
    func cancelAfter(_ parts: Int, _ client: OSSClient, _ key: String, _ scratch: RDScratch) async {
        var request = rdRequest(key, scratch, threads: 1)
        let handle = request
        request.downloadProgress = { _, total, _ in if total >= Int64(parts) * rdPartSize { handle.cancel() } }
        let error = await thrownClientError { _ = try await client.resumableDownload(request) }
        #expect(error?.code == .taskCancelled)
    }

    @Test("replaced between runs, policy fail: objectChanged, everything removed, the next call starts clean")
    func replacedBetweenRunsFail() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let old = patternBytes(700_000, seed: 31)
        let new = patternBytes(650_000, seed: 32)
        try await withServerAndClient { _, client in
            try await rdPut(client, "between.bin", old)
            await cancelAfter(2, client, "between.bin", scratch)
            try await rdPut(client, "between.bin", new)
            let error = await thrownClientError {
                _ = try await client.resumableDownload(rdRequest("between.bin", scratch, policy: .fail))
            }
            #expect(error?.code == .objectChanged)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
            let result = try await client.resumableDownload(rdRequest("between.bin", scratch, policy: .fail))
            #expect(result.resumedBytes == 0)
            #expect(try scratch.destinationBytes() == new)
        }
    }

    @Test("replaced between runs, policy restartOnce: the new object, fetched from scratch")
    func replacedBetweenRunsRestart() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let old = patternBytes(700_000, seed: 33)
        let new = patternBytes(720_000, seed: 34)
        try await withServerAndClient { server, client in
            try await rdPut(client, "between2.bin", old)
            await cancelAfter(3, client, "between2.bin", scratch)
            try await rdPut(client, "between2.bin", new)
            await server.resetStats()
            let result = try await client.resumableDownload(rdRequest("between2.bin", scratch, policy: .restartOnce))
            #expect(result.resumedBytes == 0)
            #expect(await rdGetBytes(server) == Int64(new.count))
            #expect(try scratch.destinationBytes() == new)
            #expect(result.crc64 == CRC64.checksum(new))
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    /// Replaces the object from the progress handler once `afterParts` parts are recorded; the part GETs are
    /// delayed before their If-Match is checked, so the replacement lands while a later part waits and that
    /// part gets 412 (6 parts: at most `afterParts + threads` parts are past their check).
    func replaceDuringRun(
        afterParts: Int, policy: OSSDownloadObjectChangedPolicy, threads: Int
    ) async throws -> (result: Result<OSSResumableDownloadResult, any Error>, old: [UInt8], new: [UInt8], scratch: RDScratch) {
        let scratch = try RDScratch()
        let old = patternBytes(614_400, seed: 35)  // 6 parts
        let new = patternBytes(500_000, seed: 36)
        let result = try await withServerAndClient { server, client in
            try await rdPut(client, "during.bin", old)
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 250)))
            let once = NIOLockedValueBox(false)
            let request = rdRequest(
                "during.bin", scratch, threads: threads, policy: policy,
                progress: { _, total, _ in
                    guard total >= Int64(afterParts) * rdPartSize else { return }
                    let first = once.withLockedValue { fired in
                        defer { fired = true }
                        return !fired
                    }
                    if first { Task { try await rdPut(client, "during.bin", new) } }
                })
            let outcome: Result<OSSResumableDownloadResult, any Error>
            do {
                outcome = .success(try await client.resumableDownload(request))
            } catch {
                outcome = .failure(error)
            }
            return outcome
        }
        return (result, old, new, scratch)
    }

    @Test("replaced during the run, policy fail: objectChanged and no file, never a mix", arguments: [1, 3, 4])
    func replacedDuringRunFail(afterParts: Int) async throws {
        let run = try await replaceDuringRun(afterParts: afterParts, policy: .fail, threads: 1)
        defer { run.scratch.cleanup() }
        switch run.result {
        case .success:
            Issue.record("expected objectChanged")
        case .failure(let error):
            #expect((error as? OSSClientError)?.code == .objectChanged, "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: run.scratch.destination.path))
        #expect(try run.scratch.leftovers().isEmpty)
        #expect(run.scratch.records().isEmpty)
    }

    @Test("replaced during the run, policy restartOnce: exactly the new object", arguments: [1, 2])
    func replacedDuringRunRestart(afterParts: Int) async throws {
        let run = try await replaceDuringRun(afterParts: afterParts, policy: .restartOnce, threads: 2)
        defer { run.scratch.cleanup() }
        let result = try run.result.get()
        #expect(try run.scratch.destinationBytes() == run.new)
        #expect(result.crc64 == CRC64.checksum(run.new))
        #expect(result.totalBytes == Int64(run.new.count))
        #expect(try run.scratch.leftovers().isEmpty)
        #expect(run.scratch.records().isEmpty)
    }

    @Test("deleted between runs: NoSuchKey, and the partial download is removed")
    func deletedBetweenRuns() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            try await rdPut(client, "deleted.bin", patternBytes(600_000, seed: 37))
            await cancelAfter(2, client, "deleted.bin", scratch)
            #expect(scratch.records().count == 1)
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "deleted.bin"))
            do {
                _ = try await client.resumableDownload(rdRequest("deleted.bin", scratch))
                Issue.record("expected NoSuchKey")
            } catch let error as OSSServerError {
                #expect(error.statusCode == 404)
            }
            #expect(scratch.records().isEmpty)
            #expect(try scratch.leftovers().isEmpty)
        }
    }
}
