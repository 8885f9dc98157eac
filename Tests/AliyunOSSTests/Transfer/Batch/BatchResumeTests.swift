import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSS

@Suite("Batch resume: a batch stopped midway continues in a new client and manager")
struct BatchResumeTests {
    static let smallFiles = 30
    static let bigSize = 1_228_800  // 12 parts of 100 KB

    static func makeTree(_ scratch: BatchScratch) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = ["a-big.bin": patternBytes(bigSize, seed: 21)]
        for index in 0..<smallFiles {
            files[String(format: "f%02d.txt", index)] = patternBytes(1000 + index, seed: UInt64(index))
        }
        for (path, bytes) in files { try scratch.write(path, bytes) }
        return files
    }

    static var options: OSSDirectoryTransferOptions {
        var options = batchOptions()
        options.partsPerFile = 2
        options.filesAtOnce = 3
        return options
    }

    /// Waits until `condition` holds (up to 30 s).
    static func wait(_ condition: () async -> Bool) async throws {
        for _ in 0..<3000 where !(await condition()) { try await Task.sleep(for: .milliseconds(10)) }
    }

    @Test("paused midway, resumed elsewhere: finished files are not sent again, the large one resumes from its record")
    func pauseAndResumeInNewManager() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let files = try Self.makeTree(scratch)
        try await withServerAndClient(faults: [
            LocalOSSFaultRule(operation: .putObject, action: .delay(milliseconds: 60)),
            LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 150)),
        ]) { server, client in
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let batch = try await manager.startBatch(
                .upload(from: scratch.source, toBucket: "bkt", prefix: "r", options: Self.options))
            let firstItems = batchItems(batch)
            try await Self.wait { await server.stats()[.putObject].requests >= 8 }
            batch.pause()
            let error = await thrownClientError { _ = try await batch.result() }
            #expect(error?.code == .taskPaused)
            let first = try #require(batch.report)
            #expect(first.state == .paused)
            let uploadedFirst = Set(await firstItems.value.filter { $0.outcome == .uploaded }.map(\.key))
            #expect(uploadedFirst.count >= 5)
            #expect(!uploadedFirst.contains("r/a-big.bin"), "the large file should still have been in flight")

            let listed = try await manager.batches()
            #expect(listed.map(\.id) == [batch.id])
            #expect(listed.first?.state == .paused)
            // The large file and the small ones the pause stopped (at most one per file at once).
            #expect(listed.first?.inFlight.contains("r/a-big.bin") == true)
            #expect((listed.first?.inFlight.count ?? 0) <= Self.options.filesAtOnce)
            #expect(listed.first?.counts.uploaded == uploadedFirst.count)
            // Stopped small files the server had stored already (their answers did not arrive before the pause).
            _ = try await settledRequests(server, .putObject)
            let storedUnlisted = Set(try await listKeys(client, prefix: "r/")).subtracting(uploadedFirst)
                .subtracting(["r/a-big.bin"]).count
            let partsFirst = await server.stats()[.uploadPart].requestBodyBytes
            await server.clearFaults()
            await server.resetStats()

            // A new client and manager over the same record directory, as after a relaunch.
            try await withClient(of: server, server.credentials.provider, client.configuration) { _, second in
                let manager2 = OSSTransferManager(client: second, recordDirectoryPath: scratch.records)
                let resumed = try await manager2.resumeBatch(batch.id)
                let secondItems = batchItems(resumed)
                let report = try await resumed.result()
                #expect(report.state == .completed)
                let uploadedSecond = Set(await secondItems.value.filter { $0.outcome == .uploaded }.map(\.key))
                #expect(uploadedFirst.isDisjoint(with: uploadedSecond), "finished files were sent again")
                #expect(uploadedFirst.union(uploadedSecond) == Set(files.keys.map { "r/" + $0 }))
                #expect(report.counts.doneInEarlierRuns == uploadedFirst.count)
                let stats = await server.stats()
                // Exactly the files not stored before went out, each once (one HEAD found those the pause stopped
                // after the server had them).
                #expect(stats[.putObject].requests == Int64(uploadedSecond.count - 1 - storedUnlisted))
                // The large file resumed its multipart upload: no new upload, only the parts it lacked.
                #expect(stats[.initiateMultipartUpload].requests == 0)
                #expect(partsFirst > 0)
                #expect(stats[.uploadPart].requestBodyBytes <= Int64(Self.bigSize) - partsFirst + 2 * batchPartSize)
                #expect(report.bytesFromEarlierRuns > 0)
                for (path, bytes) in files {
                    #expect(try await objectBytes(second, "r/" + path) == bytes, "\(path)")
                }
                #expect(try await manager2.batches().isEmpty)
            }
        }
    }

    @Test("a batch inside the manager's base directory resumes after the directory moved (an iOS container)")
    func resumeAfterTheBaseDirectoryMoved() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let before = scratch.root.appendingPathComponent("container-1", isDirectory: true)
        let after = scratch.root.appendingPathComponent("container-2", isDirectory: true)
        let files: [String: [UInt8]] = ["a-big.bin": patternBytes(Self.bigSize, seed: 31), "b.txt": Array("b".utf8)]
        for (path, bytes) in files { try scratch.write("Documents/" + path, bytes, under: before) }
        try await withServerAndClient(faults: [
            LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 150))
        ]) { server, client in
            let manager = OSSTransferManager(client: client, recordDirectoryPath: "Library/records", baseDirectoryURL: before)
            let batch = try await manager.uploadDirectory(
                before.appendingPathComponent("Documents"), toBucket: "bkt", prefix: "m", options: Self.options)
            try await Self.wait { await server.stats()[.uploadPart].requests >= 4 }
            batch.pause()
            _ = await thrownClientError { _ = try await batch.result() }
            try FileManager.default.moveItem(at: before, to: after)
            await server.clearFaults()
            await server.resetStats()

            let moved = OSSTransferManager(client: client, recordDirectoryPath: "Library/records", baseDirectoryURL: after)
            let listed = try #require(try await moved.batches().first)
            #expect(listed.request.directory?.localDirectoryPath == after.appendingPathComponent("Documents").path)
            let report = try await moved.resumeBatch(listed.id).result()
            #expect(report.state == .completed)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0, "the multipart upload resumed")
            for (path, bytes) in files {
                #expect(try await objectBytes(client, "m/" + path) == bytes, "\(path)")
            }
        }
    }

    @Test("cancel removes the batch: its multipart upload is aborted and its journal deleted")
    func cancelRemovesTheBatch() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        _ = try Self.makeTree(scratch)
        try await withServerAndClient(faults: [
            LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 150))
        ]) { server, client in
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let batch = try await manager.startBatch(
                .upload(from: scratch.source, toBucket: "bkt", prefix: "x", options: Self.options))
            try await Self.wait { await server.stats()[.uploadPart].requests >= 1 }
            batch.cancel()
            let error = await thrownClientError { _ = try await batch.result() }
            #expect(error?.code == .taskCancelled)
            #expect(try await manager.batches().isEmpty)
            #expect(try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads.isEmpty)
        }
    }

    @Test("progress: totals, bytes, a rate and the Foundation Progress agree at the end")
    func progressAtTheEnd() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let files = try Self.makeTree(scratch)
        let total = Int64(files.values.map(\.count).reduce(0, +))
        try await withServerAndClient { _, client in
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let batch = try await manager.startBatch(.upload(from: scratch.source, toBucket: "bkt", prefix: "p", options: Self.options))
            let events = batch.events
            let progressEvents = Task {
                var snapshots: [OSSBatchProgress] = []
                for await event in events { if case .progress(let snapshot) = event { snapshots.append(snapshot) } }
                return snapshots
            }
            _ = try await batch.result()
            let snapshots = await progressEvents.value
            let last = try #require(snapshots.last)
            #expect(last.filesDone == files.count)
            #expect(last.filesTotal == files.count)
            #expect(last.bytesDone == total)
            #expect(last.bytesTotal == total)
            #expect(last.totalsAreFinal)
            #expect(last.fractionCompleted == 1)
            for (earlier, later) in zip(snapshots, snapshots.dropFirst()) {
                #expect(earlier.bytesDone <= later.bytesDone)
                #expect(earlier.filesDone <= later.filesDone)
            }
            #expect(batch.progress.completedUnitCount == total)
            #expect(batch.progress.totalUnitCount == total)
            #expect(batch.progress.userInfo[.fileCompletedCountKey] as? Int == files.count)
            #expect(batch.progress.fractionCompleted == 1)
        }
    }
}
