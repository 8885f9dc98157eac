import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSResumable
import Testing

/// The transfer manager with a background service: background transfers listed beside the foreground ones (also
/// by a manager of a relaunched app), paused (tasks withdrawn, record kept) and resumed (what is missing
/// submitted again), against the local server with the simulated daemon run in a task here.
@Suite("Transfer manager: background transfers")
struct BackgroundTransferManagerTests {
    /// The directories of one test: `records` (background), `manager` (foreground), `spool` (simulated system).
    struct Layout {
        let work: URL
        let session: String
        var spool: String { work.appendingPathComponent("spool").path }
        var records: String { work.appendingPathComponent("records").path }
        var managerRecords: String { work.appendingPathComponent("manager").path }

        /// A manager with a fresh background service over the same directories: what an app makes at each launch.
        func launch(_ client: OSSClient) -> OSSTransferManager {
            let service = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: session),
                recordDirectoryPath: records)
            return OSSTransferManager(client: client, recordDirectoryPath: managerRecords, backgroundService: service)
        }

        var daemon: OSSSimulatedTransferDaemon { OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: session) }

        /// Writes 1,000,000 bytes made with `salt` to `f.bin` and starts their background upload as `bkt/f.bin` in
        /// five 200,000-byte parts, two in the system's hands at a time. Returns the transfer id and the bytes.
        func startFivePartUpload(_ manager: OSSTransferManager, salt: Int) async throws -> (id: String, bytes: [UInt8]) {
            let bytes = BackgroundTransferManagerTests.bytes(1_000_000, salt)
            let file = work.appendingPathComponent("f.bin")
            try Data(bytes).write(to: file)
            let service = try #require(manager.backgroundService)
            let id = try await service.startUpload(
                OSSBackgroundUploadRequest(
                    bucketName: "bkt", objectKey: "f.bin", uploadingFileURL: file, partSize: 200_000, maximumQueuedParts: 2))
            return (id, bytes)
        }

        /// Runs the daemon and attaches through `manager` until transfer `id` is finished; checks the object.
        func finish(_ id: String, _ manager: OSSTransferManager, bytes: [UInt8]) async throws {
            while await manager.transfer(id) != nil {
                _ = try await daemon.run(exitWhenIdle: true)
                try await manager.reconcileBackground()
            }
            let head = try await manager.client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "f.bin"))
            #expect(head.crc64 == CRC64.checksum(bytes))
        }

        /// The tasks waiting in the simulated system's queue.
        func submittedTasks() -> [String] {
            (try? FileManager.default.contentsOfDirectory(atPath: spool + "/" + session + "/submitted")) ?? []
        }
    }

    static func bytes(_ count: Int, _ salt: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* salt &+ ($0 >> 10)) }
    }

    @Test("after a relaunch the manager lists background uploads and downloads beside a foreground transfer")
    func listsBackgroundBesideForeground() async throws {
        let layout = Layout(work: try BackgroundTransferServiceTests.scratch(), session: "list")
        defer { try? FileManager.default.removeItem(at: layout.work) }
        let upload = Self.bytes(1_000_000, 131)
        let object = Self.bytes(700_000, 7)
        let file = layout.work.appendingPathComponent("up.bin")
        try Data(upload).write(to: file)
        let foregroundFile = layout.work.appendingPathComponent("fg.bin")
        try Data(Self.bytes(600_000, 3)).write(to: foregroundFile)
        let destination = layout.work.appendingPathComponent("down.bin")
        // The foreground transfer is cancelled with part requests on their way: the server may take one of them
        // after the cancel returned (and count it then), so it goes to a server of its own, and the server below
        // counts the background transfers' requests alone.
        try await withServerAndClient(version: .v4) { _, client in
            try await tmUploadAndCancel(
                client, key: "fg.bin", source: foregroundFile, recordDirectory: layout.managerRecords, cancelAfter: 2)
        }
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "obj", data: Data(object)))
            let first = layout.launch(client)
            let service = try #require(first.backgroundService)
            let up = try await service.startUpload(
                OSSBackgroundUploadRequest(
                    bucketName: "bkt", objectKey: "up.bin", uploadingFileURL: file, partSize: 200_000, maximumQueuedParts: 2))
            let down = try await service.startDownload(
                OSSBackgroundDownloadRequest(
                    bucketName: "bkt", objectKey: "obj", downloadToFileURL: destination, partSize: 262_144, maximumQueuedParts: 2))

            // The app is relaunched: a new manager and service over the same directories.
            let manager = layout.launch(client)
            let listed = try await manager.transfers()
            #expect(listed.count == 3, "\(listed)")
            let foreground = try #require(listed.first { !$0.isBackground })
            #expect(foreground.kind == .upload && foreground.state == .suspended && foreground.objectKey == "fg.bin")
            let bgUpload = try #require(listed.first { $0.id == up })
            #expect(bgUpload.isBackground)
            #expect(bgUpload.kind == .upload && bgUpload.state == .ongoing)
            #expect((bgUpload.bytesDone, bgUpload.totalBytes) == (0, 1_000_000))
            #expect(bgUpload.uploadId != nil)
            let bgDownload = try #require(listed.first { $0.id == down })
            #expect(bgDownload.kind == .download && bgDownload.state == .ongoing)
            #expect((bgDownload.bytesDone, bgDownload.totalBytes) == (0, 700_000))
            #expect(await manager.transfer(down)?.temporaryFilePath != nil)

            // The system performs the queued tasks; the attach confirms them and the listing shows verified bytes.
            #expect(try await layout.daemon.run(exitWhenIdle: true) == 4)
            try await manager.reconcileBackground()
            #expect(await manager.transfer(up)?.bytesDone == 400_000)
            #expect(await manager.transfer(up)?.completedParts == 2)
            #expect(await manager.transfer(down)?.bytesDone == 524_288)

            while try await manager.transfers().contains(where: \.isBackground) {
                _ = try await layout.daemon.run(exitWhenIdle: true)
                try await manager.reconcileBackground()
            }
            #expect(try await manager.transfers().map(\.id) == [foreground.id])
            #expect([UInt8](try Data(contentsOf: destination)) == object)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "up.bin"))
            #expect(head.crc64 == CRC64.checksum(upload))
            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 5, "each background part sent once")
            #expect(stats[.getObject].requests == 3)
        }
    }

    @Test("pause withdraws the queued tasks and keeps the record; a relaunched app resumes; no part sent twice")
    func pauseAndResumeAnUpload() async throws {
        let layout = Layout(work: try BackgroundTransferServiceTests.scratch(), session: "pause")
        defer { try? FileManager.default.removeItem(at: layout.work) }
        try await withServerAndClient(version: .v4) { server, client in
            let manager = layout.launch(client)
            let (id, bytes) = try await layout.startFivePartUpload(manager, salt: 29)
            #expect(try await layout.daemon.run(exitWhenIdle: true) == 2)
            let attach = try await manager.reconcileBackground()
            #expect(attach.transfers.first?.partsSubmitted == [3, 4])
            #expect(layout.submittedTasks().count == 2)

            let pausedEvents = manager.events(for: id)
            try await manager.pauseBackground(id)
            #expect(layout.submittedTasks().isEmpty, "the queued tasks were withdrawn")
            let paused = try #require(await manager.transfer(id))
            #expect(paused.state == .suspended)
            #expect((paused.bytesDone, paused.completedParts) == (400_000, 2))
            #expect(try await layout.daemon.run(exitWhenIdle: true) == 0)
            let whilePaused = try #require(try await manager.reconcileBackground().transfers.first)
            #expect(whilePaused.paused)
            #expect(whilePaused.partsSubmitted.isEmpty, "nothing is submitted for a paused transfer")
            #expect(layout.submittedTasks().isEmpty)
            var seen: [OSSTransferEvent.Change] = []
            for await event in pausedEvents {
                seen.append(event.change)
                if seen.count == 3 { break }
            }
            #expect(seen == [.state(.suspended), .state(.suspended), .progress(bytesDone: 400_000, totalBytes: 1_000_000)])

            // Relaunched: still listed, paused, with what is done.
            let relaunched = layout.launch(client)
            let listed = try #require(await relaunched.transfer(id))
            #expect(listed.state == .suspended && listed.isBackground)
            #expect(listed.bytesDone == 400_000)
            // The foreground engine has no run of it to resume: a precise error names the call that does.
            let refused = await thrownClientError { _ = try await relaunched.resume(id) }
            #expect(refused?.code == .invalidArgument)
            #expect(refused?.message.contains("resumeBackground") == true)
            #expect(try await relaunched.resumeAll().isEmpty)

            let resumedEvents = relaunched.events(for: id)
            let resumed = try #require(try await relaunched.resumeBackground(id).transfers.first)
            #expect(!resumed.paused)
            #expect(resumed.partsSubmitted == [3, 4], "what is missing goes to the system again")
            #expect(resumed.partsDoneBefore == 2)
            #expect(await relaunched.transfer(id)?.state == .ongoing)
            try await layout.finish(id, relaunched, bytes: bytes)
            seen = []
            for await event in resumedEvents { seen.append(event.change) }  // finishes after .completed
            #expect(Array(seen.prefix(2)) == [.state(.ongoing), .progress(bytesDone: 400_000, totalBytes: 1_000_000)])
            #expect(Array(seen.suffix(2)) == [.progress(bytesDone: 1_000_000, totalBytes: 1_000_000), .completed])
            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 5, "no part sent twice")
            #expect(stats[.completeMultipartUpload].requests == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: layout.records).isEmpty)
        }
    }

    @Test("a part the system already runs when the app pauses still ends: its outcome is recorded, nothing new is submitted")
    func pauseWhileATaskRuns() async throws {
        let layout = Layout(work: try BackgroundTransferServiceTests.scratch(), session: "pause-running")
        defer { try? FileManager.default.removeItem(at: layout.work) }
        try await withServerAndClient(version: .v4) { server, client in
            let manager = layout.launch(client)
            let (id, bytes) = try await layout.startFivePartUpload(manager, salt: 17)
            // A slow answer keeps the daemon's one task running while the app pauses.
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 1500)))
            let daemon = OSSSimulatedTransferDaemon(spoolDirectory: layout.spool, sessionIdentifier: layout.session, concurrency: 1)
            let running = Task { try await daemon.run(exitWhenIdle: true) }
            let claimed = layout.spool + "/" + layout.session + "/running"
            var polls = 0
            while ((try? FileManager.default.contentsOfDirectory(atPath: claimed)) ?? []).isEmpty, polls < 2400 {
                try await Task.sleep(for: .milliseconds(25))
                polls += 1
            }
            try await manager.pauseBackground(id)
            #expect(layout.submittedTasks().isEmpty, "the task not yet started was withdrawn")
            #expect(try await running.value == 1, "the running task ended")
            await server.clearFaults()

            let attach = try #require(try await manager.reconcileBackground().transfers.first)
            #expect(attach.paused)
            #expect(attach.partsVerified == [1], "the outcome of the task that ran is recorded")
            #expect(attach.partsSubmitted.isEmpty)
            #expect(await manager.transfer(id)?.bytesDone == 200_000)
            #expect(await manager.transfer(id)?.state == .suspended)

            #expect(try await manager.resumeBackground(id).transfers.first?.partsSubmitted == [2, 3])
            try await layout.finish(id, manager, bytes: bytes)
            #expect(await server.stats()[.uploadPart].requests == 5, "the withdrawn part was sent once, after the resume")
        }
    }

    @Test("a paused download fetches nothing; resumed, it completes identical with each range fetched once")
    func pauseAndResumeADownload() async throws {
        let layout = Layout(work: try BackgroundTransferServiceTests.scratch(), session: "pause-down")
        defer { try? FileManager.default.removeItem(at: layout.work) }
        let object = Self.bytes(600_000, 11)
        let destination = layout.work.appendingPathComponent("copy.bin")
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "o", data: Data(object)))
            let manager = layout.launch(client)
            let service = try #require(manager.backgroundService)
            let id = try await service.startDownload(
                OSSBackgroundDownloadRequest(bucketName: "bkt", objectKey: "o", downloadToFileURL: destination, partSize: 262_144))
            try await manager.pauseBackground(id)
            #expect(try await layout.daemon.run(exitWhenIdle: true) == 0)
            #expect(await manager.transfer(id)?.state == .suspended)
            #expect(await server.stats()[.getObject].requests == 0)

            #expect(try await manager.resumeBackground(id).transfers.first?.partsSubmitted == [1, 2, 3])
            #expect(try await layout.daemon.run(exitWhenIdle: true) == 3)
            let done = try #require(try await manager.reconcileBackground().transfers.first)
            #expect(done.completedCRC64 == CRC64.checksum(object))
            #expect([UInt8](try Data(contentsOf: destination)) == object)
            #expect(await server.stats()[.getObject].requests == 3)
        }
    }

    @Test("precise errors: an unknown id, a record another process holds, no background service; unreadable records listed noEntry")
    func preciseErrors() async throws {
        let layout = Layout(work: try BackgroundTransferServiceTests.scratch(), session: "errors")
        defer { try? FileManager.default.removeItem(at: layout.work) }
        let file = layout.work.appendingPathComponent("f.bin")
        try Data(Self.bytes(300_000, 5)).write(to: file)
        try await withServerAndClient(version: .v4) { _, client in
            let manager = layout.launch(client)
            #expect(await thrownClientError { try await manager.pauseBackground("nope") }?.code == .invalidArgument)
            #expect(await thrownClientError { try await manager.resumeBackground("nope") }?.code == .invalidArgument)
            let service = try #require(manager.backgroundService)
            let id = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "f", uploadingFileURL: file, partSize: 102_400))
            do {
                // Another process (here: another lock holder) attaches to it now.
                let lock = try OSSRecordStore(directoryPath: layout.records).lock(name: id + ".bgupload.record")
                #expect(await thrownClientError { try await manager.pauseBackground(id) }?.code == .transferInUse)
                #expect(await thrownClientError { try await manager.terminate(id) }?.code == .transferInUse)
                withExtendedLifetime(lock) {}
            }
            #expect(layout.submittedTasks().count == 3, "nothing was withdrawn")

            let plain = OSSTransferManager(client: client, recordDirectoryPath: layout.managerRecords)
            #expect(try await plain.transfers().isEmpty)
            #expect(await thrownClientError { try await plain.pauseBackground(id) }?.code == .invalidArgument)
            #expect(await thrownClientError { try await plain.reconcileBackground() }?.code == .invalidArgument)
            try await manager.terminate(id)
            #expect(try await manager.transfers().isEmpty)

            // A background record that cannot be read is listed as noEntry, as the manager lists its own.
            try Data("not a record".utf8).write(to: URL(fileURLWithPath: layout.records + "/0-0.bgupload.record"))
            let broken = try await manager.transfers()
            #expect(broken.map(\.id) == ["0-0"])
            #expect(broken.first?.state == .noEntry && broken.first?.isBackground == true)
            #expect(broken.first?.problem != nil)
        }
    }
}
