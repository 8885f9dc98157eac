import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableDownload: cancel, resume and records")
struct ResumableDownloadResumeTests {
    /// Starts a one-part-at-a-time download that `cancel()`s itself once `afterParts` parts are recorded
    /// (progress is reported per recorded part; no further part starts after a cancel), and checks it threw
    /// taskCancelled.
    func cancelledRun(_ client: OSSClient, _ key: String, _ scratch: RDScratch, afterParts: Int) async {
        var request = rdRequest(key, scratch, threads: 1)
        // Copies share the cancellation state, so a copy taken before the handler is set can cancel the run.
        let handle = request
        request.downloadProgress = { _, total, _ in
            if total >= Int64(afterParts) * rdPartSize { handle.cancel() }
        }
        let error = await thrownClientError { _ = try await client.resumableDownload(request) }
        #expect(error?.code == .taskCancelled)
        #expect(request.isCancelled)
    }

    @Test("cancel keeps the temporary file and the record; the resume fetches only the missing parts")
    func cancelThenResume() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_024_000, seed: 21)  // exactly 10 parts
        try await withServerAndClient { server, client in
            try await rdPut(client, "cancel.bin", bytes)
            await cancelledRun(client, "cancel.bin", scratch, afterParts: 3)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))
            #expect(try scratch.temporaryFiles().count == 1)
            #expect(scratch.records().count == 1)

            await server.resetStats()
            let log = RDProgressLog()
            let result = try await client.resumableDownload(
                rdRequest("cancel.bin", scratch, threads: 3, progress: log.handler()))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.resumedBytes == 3 * rdPartSize)
            // Exactly the missing parts were fetched, once each.
            #expect(await rdGetBytes(server) == Int64(bytes.count) - result.resumedBytes)
            #expect(await server.stats()[.headObject].requests == 1)
            // The first report of a resumed download covers the bytes already on disk.
            #expect(log.reports.first?.total == result.resumedBytes)
            log.verifyMonotonic(expected: Int64(bytes.count))
            #expect(try scratch.leftovers().isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("a request cancelled before it starts throws taskCancelled and touches nothing")
    func cancelledBeforeStart() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { server, client in
            try await rdPut(client, "early.bin", patternBytes(300_000))
            await server.resetStats()
            let request = rdRequest("early.bin", scratch)
            request.cancel()
            let error = await thrownClientError { _ = try await client.resumableDownload(request) }
            #expect(error?.code == .taskCancelled)
            #expect(await rdGetBytes(server) == 0)
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    @Test("Task cancellation stops the download and keeps what is needed to resume")
    func taskCancellation() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(1_200_000, seed: 22)
        try await withServerAndClient { server, client in
            try await rdPut(client, "task.bin", bytes)
            // Slow parts, so the download is still running when the Task is cancelled.
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 150)))
            let (firstPart, continuation) = AsyncStream<Void>.makeStream()
            // Progress is reported per recorded part.
            let request = rdRequest(
                "task.bin", scratch, threads: 2,
                progress: { _, total, _ in if total >= rdPartSize { continuation.yield() } })
            let task = Task { try await client.resumableDownload(request) }
            var iterator = firstPart.makeAsyncIterator()
            await iterator.next()
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("expected taskCancelled")
            } catch let error as OSSClientError {
                #expect(error.code == .taskCancelled)
            }
            #expect(scratch.records().count == 1)
            #expect(try scratch.temporaryFiles().count == 1)
            await server.clearFaults()
            let result = try await client.resumableDownload(rdRequest("task.bin", scratch))
            #expect(result.resumedBytes > 0)
            #expect(try scratch.destinationBytes() == bytes)
        }
    }

    @Test("without a record directory, cancel removes the temporary file")
    func cancelWithoutRecord() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        try await withServerAndClient { _, client in
            try await rdPut(client, "cnr.bin", patternBytes(600_000))
            var request = rdRequest("cnr.bin", scratch, record: false, threads: 1)
            let handle = request
            request.downloadProgress = { _, _, _ in handle.cancel() }
            let error = await thrownClientError { _ = try await client.resumableDownload(request) }
            #expect(error?.code == .taskCancelled)
            #expect(try scratch.leftovers().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))
        }
    }

    @Test("a corrupt record is said once, naming it, then a fresh start gives an identical file")
    func corruptRecord() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(800_000, seed: 23)
        try await withServerAndClient { server, client in
            try await rdPut(client, "corrupt.bin", bytes)
            await cancelledRun(client, "corrupt.bin", scratch, afterParts: 2)
            let records = scratch.records()
            try #require(records.count == 1)
            let path = scratch.recordDirectory + "/" + records[0]
            for garbage in [Data("{\"magic\":\"nope\"".utf8), Data(), Data(repeating: 0xFF, count: 4096)] {
                try garbage.write(to: URL(fileURLWithPath: path))
                await server.resetStats()
                let notices = OSSLockedValue<[OSSRecordNotice]>([])
                var request = rdRequest("corrupt.bin", scratch)
                request.recordNotice = { notice in notices.withLockedValue { $0.append(notice) } }
                let result = try await client.resumableDownload(request)
                let said = notices.withLockedValue { $0 }
                #expect(said.count == 1)
                #expect(said.first?.recordPath.hasSuffix("/" + records[0]) == true, "\(said)")
                #expect(said.first?.direction == .download)
                #expect(said.first?.description.hasSuffix("starting the download over") == true)
                #expect(result.resumedBytes == 0)
                #expect(await rdGetBytes(server) == Int64(bytes.count))
                #expect(try scratch.destinationBytes() == bytes)
                #expect(try scratch.leftovers().isEmpty)
                #expect(scratch.records().isEmpty)
                // Put a partial run back for the next garbage variant.
                await cancelledRun(client, "corrupt.bin", scratch, afterParts: 2)
            }
        }
    }

    @Test("an edited record (checksum no longer matches) is ignored")
    func editedRecord() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(800_000, seed: 24)
        try await withServerAndClient { _, client in
            try await rdPut(client, "edited.bin", bytes)
            await cancelledRun(client, "edited.bin", scratch, afterParts: 2)
            let path = scratch.recordDirectory + "/" + scratch.records()[0]
            var text = try String(contentsOfFile: path, encoding: .utf8)
            text = text.replacingOccurrences(of: "crc64", with: "crc65")
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            let result = try await client.resumableDownload(rdRequest("edited.bin", scratch))
            #expect(result.resumedBytes == 0)
            #expect(try scratch.destinationBytes() == bytes)
        }
    }

    @Test("a missing or resized temporary file means a clean fresh start", arguments: [false, true])
    func alteredTemporaryFile(resize: Bool) async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(900_000, seed: 25)
        try await withServerAndClient { server, client in
            try await rdPut(client, "tmp.bin", bytes)
            await cancelledRun(client, "tmp.bin", scratch, afterParts: 3)
            let temp = try #require(try scratch.temporaryFiles().first)
            let tempPath = scratch.root.appendingPathComponent(temp).path
            if resize {
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: tempPath))
                try handle.truncate(atOffset: 1000)
                try handle.close()
            } else {
                try FileManager.default.removeItem(atPath: tempPath)
            }
            await server.resetStats()
            let result = try await client.resumableDownload(rdRequest("tmp.bin", scratch))
            #expect(result.resumedBytes == 0)
            #expect(await rdGetBytes(server) == Int64(bytes.count))
            #expect(try scratch.destinationBytes() == bytes)
            #expect(try scratch.leftovers().isEmpty)
        }
    }

    @Test("a second download on the same record while the first runs is transferInUse")
    func concurrentResume() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(600_000, seed: 26)
        try await withServerAndClient { server, client in
            try await rdPut(client, "lock.bin", bytes)
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 200)))
            let (started, continuation) = AsyncStream<Void>.makeStream()
            let first = Task {
                try await client.resumableDownload(
                    rdRequest("lock.bin", scratch, threads: 1, progress: { _, _, _ in continuation.yield() }))
            }
            var iterator = started.makeAsyncIterator()
            await iterator.next()
            let error = await thrownClientError { _ = try await client.resumableDownload(rdRequest("lock.bin", scratch)) }
            #expect(error?.code == .transferInUse)
            await server.clearFaults()
            _ = try await first.value
            #expect(try scratch.destinationBytes() == bytes)
        }
    }
}
