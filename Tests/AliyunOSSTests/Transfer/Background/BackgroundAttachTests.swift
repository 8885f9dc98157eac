@testable import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import Testing

/// How an attach meets the system: what the system waits for when it relaunches the app (events recorded, parts
/// submitted, no request to OSS), and the order of its reads.
@Suite("Background attach")
struct BackgroundAttachTests {
    /// The real simulated system, with the daemon run to the end of its queue right after the first read of an
    /// attach (pending tasks or delivered events, whichever comes first): a task that ends between the two reads.
    struct EndsTasksBetweenReads: OSSBackgroundTaskSystem {
        let system: OSSSimulatedTaskSystem
        let daemon: OSSSimulatedTransferDaemon
        let armed = Armed()

        final class Armed: Sendable {
            private let state = OSSLockedValue(true)
            func fire() -> Bool { state.withLockedValue { armed in defer { armed = false }; return armed } }
            func arm() { state.withLockedValue { $0 = true } }
        }

        var sessionIdentifier: String { system.sessionIdentifier }
        func submit(_ task: OSSBackgroundTask) async throws { try await system.submit(task) }
        func pendingTaskDescriptions() async throws -> [String] {
            let pending = try await system.pendingTaskDescriptions()
            if armed.fire() { _ = try await daemon.run(exitWhenIdle: true) }
            return pending
        }
        func deliveredEvents() async throws -> [OSSBackgroundTaskEvent] {
            let events = try await system.deliveredEvents()
            if armed.fire() { _ = try await daemon.run(exitWhenIdle: true) }
            return events
        }
        func acknowledge(_ events: [OSSBackgroundTaskEvent]) async throws { try await system.acknowledge(events) }
        func cancelTasks(describedAs descriptions: Set<String>) async throws { try await system.cancelTasks(describedAs: descriptions) }
    }

    @Test("tasks that end between the attach's two reads are taken from their events, not sent a second time")
    func taskEndingBetweenReadsIsNotSentTwice() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 7)) }
        let spool = work.appendingPathComponent("spool").path
        let destination = work.appendingPathComponent("copy.bin")
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d.bin", data: Data(bytes)))
            let system = EndsTasksBetweenReads(
                system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "between"),
                daemon: OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "between"))
            let service = OSSBackgroundTransferService(
                client: client, system: system, recordDirectoryPath: work.appendingPathComponent("records").path)
            _ = try await service.startDownload(
                OSSBackgroundDownloadRequest(
                    bucketName: "bkt", objectKey: "d.bin", downloadToFileURL: destination, partSize: 262_144))
            let report = try await service.reconcile()
            let transfer = try #require(report.transfers.first)
            #expect(transfer.partsVerified == [1, 2, 3])
            #expect(transfer.partsSubmitted.isEmpty, "a range that ended meanwhile is not submitted again")
            #expect(transfer.completedCRC64 == CRC64.checksum(bytes))
            #expect([UInt8](try Data(contentsOf: destination)) == bytes)
            #expect(await server.stats()[.getObject].requests == 3, "each range fetched once")
        }
    }

    /// A 500,000-byte file uploaded in 200,000-byte parts through session `session` of `work`: started, the
    /// daemon run once, and the outcome of the `lost`-th task it finished never delivered to the app. Returns the
    /// file's bytes.
    static func uploadLosingOutcome(
        _ service: OSSBackgroundTransferService, work: URL, session: String, maximumQueuedParts: Int, lost: Int
    ) async throws -> [UInt8] {
        let bytes = (0..<500_000).map { UInt8(truncatingIfNeeded: $0 &* 11 &+ ($0 >> 8)) }
        let file = work.appendingPathComponent("f.bin")
        try Data(bytes).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        _ = try await service.startUpload(
            OSSBackgroundUploadRequest(
                bucketName: "bkt", objectKey: "f", uploadingFileURL: file, partSize: 200_000,
                maximumQueuedParts: maximumQueuedParts))
        _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: session).run(exitWhenIdle: true)
        let completed = spool + "/" + session + "/completed"
        let entries = try FileManager.default.contentsOfDirectory(atPath: completed).filter { $0.hasSuffix(".json") }.sorted()
        try FileManager.default.removeItem(atPath: completed + "/" + entries[lost - 1])
        return bytes
    }

    @Test("the system's handler comes once outcomes are recorded and parts submitted; ListParts and Complete after")
    func handlerBeforeNetworkWork() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withServerAndClient(version: .v4) { server, client in
            let service = BackgroundTransferServiceTests.service(client, work, "handler")
            // One outcome never reaches the app: only ListParts can tell that part 3 is there.
            _ = try await Self.uploadLosingOutcome(service, work: work, session: "handler", maximumQueuedParts: 16, lost: 3)

            // UIKit's handler: a plain, non-Sendable `() -> Void`, called on the main actor.
            let seen = await withCheckedContinuation { (continuation: CheckedContinuation<(Int, Bool), Never>) in
                Task { @MainActor in
                    var calls = 0
                    let handler: () -> Void = {
                        calls += 1
                        let status = try? service.backgroundTransfers().first
                        continuation.resume(returning: (status?.partsDone ?? -1, calls == 1))
                    }
                    service.handleEventsForBackgroundURLSession(identifier: "handler", completionHandler: handler)
                }
            }
            #expect(seen.0 == 2, "the two delivered outcomes are recorded before the handler; the record is still there")
            #expect(seen.1)
            await MainActor.run {}  // the job that called the handler starts the full attach right after it
            await service.finishedReconciling()
            let stats = await server.stats()
            #expect(stats[.listParts].requests == 1)
            #expect(stats[.completeMultipartUpload].requests == 1)
            #expect(stats[.uploadPart].requests == 3, "part 3 adopted from ListParts, not sent again")
            #expect(try service.backgroundTransfers().isEmpty)
        }
    }

    @Test("the recording attach sends nothing to OSS; the full attach after it does ListParts and Complete")
    func recordingAttachIsLocal() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withServerAndClient(version: .v4) { server, client in
            let service = BackgroundTransferServiceTests.service(client, work, "local")
            // Part 2's outcome is lost; part 3 waits for a place in the queue.
            let bytes = try await Self.uploadLosingOutcome(service, work: work, session: "local", maximumQueuedParts: 2, lost: 2)
            let before = await server.stats()

            let recorded = try await service.recordDeliveredEvents()
            let transfer = try #require(recorded.transfers.first)
            #expect(transfer.partsVerified == [1])
            #expect(transfer.partsSubmitted == [3], "the next part is handed to the system at once")
            let after = await server.stats()
            #expect(after[.listParts].requests == before[.listParts].requests, "no ListParts while the system waits")
            #expect(after[.uploadPart].requests == 2)

            let spool = work.appendingPathComponent("spool").path
            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "local").run(exitWhenIdle: true)
            let full = try await service.reconcile()
            #expect(full.transfers.first?.completedCRC64 == CRC64.checksum(bytes))
            let stats = await server.stats()
            #expect(stats[.listParts].requests == before[.listParts].requests + 1)
            #expect(stats[.uploadPart].requests == 3, "part 2 adopted, not sent again")
            #expect(stats[.completeMultipartUpload].requests == 1)
        }
    }
}
