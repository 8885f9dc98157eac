@testable import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSCRC64
import OSSLocalServer
import Testing

/// The background service's API in one process, with the simulated daemon run in a task here (the subprocess
/// tests are in OSSToolTests): listing, the transfer manager's view, progress from what is done, at most
/// `maximumQueuedParts` in the system's hands, and the completion handler called once the outcomes are recorded.
@Suite("Background transfer service")
struct BackgroundTransferServiceTests {
    static func scratch() throws -> URL {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("bg-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return work
    }

    /// A service over `work/spool` (simulated system, session `session`) and `work/records`.
    static func service(_ client: OSSClient, _ work: URL, _ session: String) -> OSSBackgroundTransferService {
        OSSBackgroundTransferService(
            client: client,
            system: OSSSimulatedTaskSystem(spoolDirectory: work.appendingPathComponent("spool").path, sessionIdentifier: session),
            recordDirectoryPath: work.appendingPathComponent("records").path)
    }

    @Test("V1 + STS: parts go to the system two at a time; each attach records and lists progress before the handler")
    func attachesStepByStep() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = (0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ ($0 >> 9)) }
        let file = work.appendingPathComponent("five.bin")
        try Data(bytes).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        try await withServerAndClient(version: .v1, sts: true) { server, client in
            let service = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "s"),
                recordDirectoryPath: work.appendingPathComponent("records").path,
                credentialExpiration: { Date().addingTimeInterval(3600) })
            let daemon = OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "s")
            let manager = OSSTransferManager(
                client: client, recordDirectoryPath: work.appendingPathComponent("manager").path, backgroundService: service)
            let id = try await service.startUpload(
                OSSBackgroundUploadRequest(
                    bucketName: "bkt", objectKey: "five.bin", uploadingFileURL: file, partSize: 200_000, maximumQueuedParts: 2))
            let listed = try #require(try service.backgroundTransfers().first)
            #expect(listed.transferId == id)
            #expect((listed.partsQueued, listed.partsDone, listed.totalParts, listed.completedBytes) == (2, 0, 5, 0))
            #expect(try await manager.transfers().map(\.state) == [.ongoing])
            // The record holds no credentials, token or signature (the spool holds the presigned URLs, as the system does).
            let records = work.appendingPathComponent("records").path
            let recordFiles = try FileManager.default.contentsOfDirectory(atPath: records).filter { $0.hasSuffix(".record") }
            #expect(recordFiles.count == 1)
            for name in recordFiles {
                let text = try String(contentsOfFile: records + "/" + name, encoding: .utf8)
                for secret in ["LocalTempSecret", "CAIS", "STS.LocalTempKey", "Signature", "security-token", "http"] {
                    #expect(!text.contains(secret), "\(secret) in \(name)")
                }
            }

            // Another session's events are not ours: the handler is called at once.
            let calledAtOnce = await MainActor.run {
                var called = false
                service.handleEventsForBackgroundURLSession(identifier: "another") { called = true }
                return called
            }
            #expect(calledAtOnce)

            var attaches = 0
            var partsDone = 0
            while partsDone < 5, attaches < 4 {
                #expect(try await daemon.run(exitWhenIdle: true) <= 2, "never more than maximumQueuedParts in the system")
                // The handler comes once the attach's outcomes are recorded and the next parts submitted; Complete
                // runs after it.
                let seenByHandler = await withCheckedContinuation { (continuation: CheckedContinuation<[OSSBackgroundTransferStatus], Never>) in
                    Task { @MainActor in
                        service.handleEventsForBackgroundURLSession(identifier: "s") {
                            continuation.resume(returning: (try? service.backgroundTransfers()) ?? [])
                        }
                    }
                }
                attaches += 1
                let status = try #require(seenByHandler.first, "the record is there when the handler runs")
                #expect(status.partsDone == min(5, 2 * attaches))
                #expect(status.completedBytes == Int64(status.partsDone) * 200_000)
                partsDone = status.partsDone
                // The main-actor job that called the handler starts the full attach right after it: let it end.
                await MainActor.run {}
                await service.finishedReconciling()
            }
            #expect(attaches == 3)
            #expect(try await manager.transfers().isEmpty)
            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 5)
            #expect(stats[.completeMultipartUpload].requests == 1)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "five.bin"))
            #expect(head.crc64 == CRC64.checksum(bytes))
        }
    }

    @Test("a one-part upload is copied too: the original may be gone (or unreadable) when the system sends it")
    func onePartIsCopied() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = [UInt8](repeating: 7, count: 50_000)
        let file = work.appendingPathComponent("small.bin")
        try Data(bytes).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        let records = work.appendingPathComponent("records").path
        try await withServerAndClient(version: .v4) { server, client in
            let service = Self.service(client, work, "one")
            let id = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "small.bin", uploadingFileURL: file))
            #expect(FileManager.default.fileExists(atPath: records + "/" + id + ".parts/1"))
            try FileManager.default.removeItem(at: file)  // a picked file's access ended, or it is protected while locked
            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "one").run(exitWhenIdle: true)
            let report = try await service.reconcile()
            #expect(report.transfers.first?.completedCRC64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPart].requests == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: records).isEmpty)
        }
    }

    @Test("tasks the system lost are submitted again; a file changed under a lost copy fails only its own transfer")
    func lostTasksAndAChangedFile() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let spool = work.appendingPathComponent("spool").path
        let records = work.appendingPathComponent("records").path
        let steady = work.appendingPathComponent("steady.bin")
        let changing = work.appendingPathComponent("changing.bin")
        try Data([UInt8](repeating: 1, count: 300_000)).write(to: steady)
        try Data([UInt8](repeating: 2, count: 300_000)).write(to: changing)
        try await withServerAndClient(version: .v4) { server, client in
            let service = Self.service(client, work, "lost")
            let good = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "steady", uploadingFileURL: steady, partSize: 102_400))
            let bad = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "changing", uploadingFileURL: changing, partSize: 102_400))
            // The system loses every task (its queue is wiped), one copy is gone, and its file changed meanwhile.
            let submitted = spool + "/lost/submitted"
            for entry in try FileManager.default.contentsOfDirectory(atPath: submitted) {
                try FileManager.default.removeItem(atPath: submitted + "/" + entry)
            }
            try FileManager.default.removeItem(atPath: records + "/" + bad + ".parts/2")
            try Data([UInt8](repeating: 3, count: 300_000)).write(to: changing)

            let report = try await service.reconcile()
            let goodReport = try #require(report.transfers.first { $0.transferId == good })
            #expect(goodReport.partsSubmitted == [1, 2, 3], "lost tasks are submitted again")
            #expect(goodReport.error == nil)
            let badReport = try #require(report.transfers.first { $0.transferId == bad })
            #expect(badReport.error?.contains("changed") == true, "\(String(describing: badReport.error))")
            #expect(report.failures.count == 1)

            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "lost").run(exitWhenIdle: true)
            let second = try await service.reconcile()
            #expect(second.transfers.first { $0.transferId == good }?.completedCRC64 == CRC64.checksum([UInt8](repeating: 1, count: 300_000)))
            #expect(await server.stats()[.completeMultipartUpload].requests == 1)
        }
    }

    @Test("credentials that expire within a minute: a precise signFailed before anything is initiated")
    func expiringCredentialsFailFirst() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("f.bin")
        try Data([UInt8](repeating: 9, count: 1000)).write(to: file)
        try await withServerAndClient(version: .v4, sts: true) { server, client in
            let service = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: work.appendingPathComponent("spool").path, sessionIdentifier: "x"),
                recordDirectoryPath: work.appendingPathComponent("records").path,
                credentialExpiration: { Date().addingTimeInterval(30) })
            await #expect(throws: OSSClientError.self) {
                try await service.startUpload(OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "f", uploadingFileURL: file))
            }
            do {
                _ = try await service.startDownload(
                    OSSBackgroundDownloadRequest(bucketName: "bkt", objectKey: "f", downloadToFileURL: file))
                Issue.record("the download started")
            } catch let error as OSSClientError {
                #expect(error.code == .signFailed)
            }
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0)
            #expect(try service.backgroundTransfers().isEmpty)
        }
    }

    @Test("the transfer manager reports a background download: ongoing, progress from what is done, completed")
    func managerEventsForABackgroundDownload() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = (0..<700_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 11)) }
        let spool = work.appendingPathComponent("spool").path
        let destination = work.appendingPathComponent("copy.bin")
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d.bin", data: Data(bytes)))
            let service = Self.service(client, work, "d")
            let manager = OSSTransferManager(
                client: client, recordDirectoryPath: work.appendingPathComponent("manager").path, backgroundService: service)
            let id = try await service.startDownload(
                OSSBackgroundDownloadRequest(
                    bucketName: "bkt", objectKey: "d.bin", downloadToFileURL: destination, partSize: 65_536 * 4,
                    maximumQueuedParts: 2))
            let events = manager.events(for: id)
            let daemon = OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "d")
            while try !service.backgroundTransfers().isEmpty {
                _ = try await daemon.run(exitWhenIdle: true)
                _ = try await manager.reconcileBackground()
            }
            var seen: [OSSTransferEvent.Change] = []
            for await event in events { seen.append(event.change) }
            #expect(seen == [
                .state(.ongoing), .progress(bytesDone: 524_288, totalBytes: 700_000),
                .progress(bytesDone: 700_000, totalBytes: 700_000), .completed,
            ])
            #expect([UInt8](try Data(contentsOf: destination)) == bytes)
            #expect(await server.stats()[.getObject].requests == 3)
        }
    }

    @Test("events the system lost: ListParts shows the parts with their CRC-64, so they are adopted, not sent again")
    func lostEventsAreAdoptedFromListParts() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = (0..<500_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ ($0 >> 10)) }
        let file = work.appendingPathComponent("f.bin")
        try Data(bytes).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        try await withServerAndClient(version: .v4) { server, client in
            let service = Self.service(client, work, "lost-events")
            _ = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "f", uploadingFileURL: file, partSize: 200_000))
            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "lost-events").run(exitWhenIdle: true)
            // The outcomes never reach the app (the system's once-only delivery to a process that died).
            let completed = spool + "/lost-events/completed"
            for entry in try FileManager.default.contentsOfDirectory(atPath: completed) {
                try FileManager.default.removeItem(atPath: completed + "/" + entry)
            }
            let report = try await service.reconcile()
            let transfer = try #require(report.transfers.first)
            #expect(transfer.partsVerified == [1, 2, 3])
            #expect(transfer.partsSubmitted.isEmpty)
            #expect(transfer.completedCRC64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPart].requests == 3, "no part sent twice")
        }
    }

    @Test("cancel: the tasks are withdrawn, the upload aborted, copies and record removed; a download's temporary file too")
    func cancelEndsATransferForGood() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let file = work.appendingPathComponent("f.bin")
        try Data([UInt8](repeating: 5, count: 450_000)).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        let records = work.appendingPathComponent("records").path
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "there", data: Data(count: 300_000)))
            let service = Self.service(client, work, "c")
            let upload = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "f", uploadingFileURL: file, partSize: 150_000))
            let download = try await service.startDownload(
                OSSBackgroundDownloadRequest(
                    bucketName: "bkt", objectKey: "there", downloadToFileURL: work.appendingPathComponent("copy"), partSize: 65_536))
            #expect(try service.backgroundTransfers().count == 2)
            let manager = OSSTransferManager(
                client: client, recordDirectoryPath: work.appendingPathComponent("manager").path, backgroundService: service)
            let events = manager.events(for: upload)
            try await manager.terminate(upload)
            var seen: [OSSTransferEvent.Change] = []
            for await event in events { seen.append(event.change) }
            #expect(seen == [.terminated])
            try await service.cancel(transferId: download)
            await #expect(throws: OSSClientError.self) { try await service.cancel(transferId: upload) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: records).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: spool + "/c/submitted").isEmpty)
            #expect(try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "c").run(exitWhenIdle: true) == 0)
            #expect(await server.stats()[.abortMultipartUpload].requests == 1)
            #expect(try await client.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt")).uploads.isEmpty)
        }
    }

    @Test("a queued task whose URL expires within a minute is replaced by a freshly signed one; nothing is sent twice")
    func expiringURLsAreSignedAgain() async throws {
        let work = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = [UInt8](repeating: 4, count: 250_000)
        let file = work.appendingPathComponent("f.bin")
        try Data(bytes).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        try await withServerAndClient(version: .v4) { server, client in
            let service = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "exp"),
                recordDirectoryPath: work.appendingPathComponent("records").path, urlLifetime: 30)
            _ = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "f", uploadingFileURL: file, partSize: 102_400))
            let submitted = spool + "/exp/submitted"
            let first = Set(try FileManager.default.contentsOfDirectory(atPath: submitted))
            #expect(first.count == 3)
            let report = try #require(try await service.reconcile().transfers.first)
            #expect(report.partsSubmitted == [1, 2, 3], "the 30-second URLs were signed again")
            let second = Set(try FileManager.default.contentsOfDirectory(atPath: submitted))
            #expect(second.count == 3)
            #expect(first.isDisjoint(with: second), "the old tasks were withdrawn")
            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "exp").run(exitWhenIdle: true)
            let done = try #require(try await service.reconcile().transfers.first)
            #expect(done.completedCRC64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPart].requests == 3)
        }
    }
}
