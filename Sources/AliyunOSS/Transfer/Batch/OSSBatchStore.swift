import Foundation
import OSSResumable

/// The batch layer's one entry point: the batches (directory and list transfers) kept under
/// `<record directory>/batches/`, the ones running in this process, and the in-memory sources of their list
/// uploads. ``OSSTransferManager`` owns one and forwards its batch API to it; nothing here knows the manager.
///
/// Each batch has a directory `<record directory>/batches/<id>/` holding its append-only journal (see
/// ``OSSBatchJournalEntry``), the checkpoint records of its resumable transfers in flight, and a lock (one run of
/// a batch at a time, across processes).
final class OSSBatchStore: Sendable {
    let client: OSSClient
    let recordDirectoryPath: String
    let baseDirectoryURL: URL?
    /// Moves the files of every batch here instead of the batch's own requests (``OSSBatchFileTransport``).
    let fileTransport: (any OSSBatchFileTransport)?

    private struct State {
        var running: [String: OSSBatch] = [:]
        /// The `Data` and streams a list upload was started with here, by batch id: kept until it completes or is
        /// removed, so a resume in this process needs nothing more.
        var sources: [String: [String: OSSBatchUploadSource]] = [:]
    }

    private let state = OSSLockedValue(State())

    init(
        client: OSSClient, recordDirectoryPath: String, baseDirectoryURL: URL?,
        fileTransport: (any OSSBatchFileTransport)? = nil
    ) {
        self.client = client
        self.recordDirectoryPath = recordDirectoryPath
        self.baseDirectoryURL = baseDirectoryURL
        self.fileTransport = fileTransport
    }

    /// Refuses a batch whose recorded transport is not this store's (a batch is never sent half one way).
    func checkTransport(of request: OSSBatchRequest, batch: String) throws {
        let recorded = request.options.fileTransport
        guard recorded == fileTransport?.identifier else {
            throw OSSClientError.invalidArgument(
                "batch \(batch) moves its files with \(recorded.map { "the transport \($0)" } ?? "no transport"), "
                    + "this manager with \(fileTransport.map { "the transport \($0.identifier)" } ?? "none")")
        }
    }

    /// The batch `id` if it is running here.
    func running(_ id: String) -> OSSBatch? {
        state.withLockedValue { $0.running[id] }
    }

    /// Starts a batch; `sources` are a list upload's `Data` and streams by key.
    func start(_ request: OSSBatchRequest, sources: [String: OSSBatchUploadSource] = [:]) async throws -> OSSBatch {
        var request = request
        switch request {
        case .directory(var directory):
            try directory.validate()
            directory.prefix = OSSDirectoryTransferRequest.directoryPrefix(directory.prefix)
            request = .directory(directory)
        case .list(let list):
            try list.validate()
        }
        if request.options.crcFlag == nil { request.options.crcFlag = client.configuration.crcCheckEnabled }
        if request.options.fileTransport == nil { request.options.fileTransport = fileTransport?.identifier }
        let id = UUID().uuidString.lowercased()
        try checkTransport(of: request, batch: id)
        let stored = portable(request)
        guard !request.options.dryRun else {
            return launch(id: id, request: request, stored: stored, directory: nil, lock: nil, replay: nil, provider: nil)
        }
        let directory = OSSBatchDirectory(recordDirectory: recordDirectoryPath, id: id)
        try directory.create()
        let lock = try Self.lockBatch(directory)
        if !sources.isEmpty { state.withLockedValue { $0.sources[id] = sources } }
        return launch(id: id, request: request, stored: stored, directory: directory, lock: lock, replay: nil, provider: nil)
    }

    /// Resumes the batch `id` (see ``OSSTransferManager/resumeBatch(_:sources:)``).
    func resume(_ id: String, provider: OSSBatchSourceProvider?) async throws -> OSSBatch {
        if let running = running(id) { return running }
        let directory = try existingBatch(id)
        let lock = try Self.lockBatch(directory)
        let replay = try await OSSBatchJournalReplay.read(path: directory.journalPath)
        try checkTransport(of: replay.request, batch: id)
        return launch(
            id: id, request: try resolved(replay.request), stored: replay.request, directory: directory, lock: lock,
            replay: replay, provider: provider)
    }

    /// Every batch in the record directory, oldest first.
    func list() async throws -> [OSSBatchInfo] {
        let root = recordDirectoryPath + "/" + OSSBatchDirectory.folder
        guard FileManager.default.fileExists(atPath: root) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: root)
        } catch {
            throw OSSClientError(.fileCantRead, "cannot list \(root)", underlying: error)
        }
        var infos: [OSSBatchInfo] = []
        for name in names where OSSBatchDirectory.isBatchId(name) {
            if let info = try? await info(name) { infos.append(info) }
        }
        return infos.sorted { ($0.created, $0.id) < ($1.created, $1.id) }
    }

    /// The batch `id` as ``list()`` describes it.
    func info(_ id: String) async throws -> OSSBatchInfo {
        let directory = try existingBatch(id)
        let replay = try await OSSBatchJournalReplay.read(path: directory.journalPath)
        var state = replay.state
        if running(id) != nil {
            state = .running
        } else if case .failure(.recordLocked) = Result(catching: { () throws(OSSResumableError) in
            try OSSRecordLock.acquire(path: directory.lockPath)
        }) {
            state = .running
        }
        return OSSBatchInfo(
            id: id, request: (try? resolved(replay.request)) ?? replay.request, state: state, created: replay.created,
            counts: replay.counts, bytesDone: replay.bytesDone, inFlight: replay.inFlight.sorted(by: OSSKeyOrder.precedes))
    }

    /// Removes the batch `id` (see ``OSSTransferManager/removeBatch(_:)``).
    func remove(_ id: String) async throws {
        if let running = running(id) {
            running.cancel()
            _ = try? await running.result()
            return
        }
        let directory = try existingBatch(id)
        let lock = try Self.lockBatch(directory)
        defer { withExtendedLifetime(lock) {} }
        try await removeFiles(directory)
        state.withLockedValue { $0.sources[id] = nil }
    }

    // MARK: - Running

    /// Starts the run of `request` (absolute paths), whose journal holds `stored` (its local paths relative to
    /// the base directory when they lie inside it).
    private func launch(
        id: String, request: OSSBatchRequest, stored: OSSBatchRequest, directory: OSSBatchDirectory?,
        lock: OSSRecordLock?, replay: OSSBatchJournalReplay?, provider: OSSBatchSourceProvider?
    ) -> OSSBatch {
        let (events, continuation) = AsyncStream.makeStream(
            of: OSSBatchEvent.self, bufferingPolicy: .bufferingNewest(OSSTransferEventHub.bufferSize))
        let tracker = OSSBatchProgressTracker(fileOperation: request.direction)
        let control = OSSBatchControl()
        let batch = OSSBatch(id: id, request: request, events: events, tracker: tracker, control: control)
        // The transfers' records are relative to the base directory too, so they survive it moving.
        let base = stored.localPaths.allSatisfy(OSSBaseDirectory.isRelative) ? baseDirectoryURL : nil
        let given = state.withLockedValue { $0.sources[id] } ?? [:]
        let runner = OSSBatchRunner(
            id: id, client: client, request: request, journalRequest: stored,
            sources: OSSBatchSources(given: given, provider: provider), baseDirectoryURL: base, directory: directory,
            replay: replay, tracker: tracker, control: control, events: continuation, fileTransport: fileTransport)
        if directory != nil { state.withLockedValue { $0.running[id] = batch } }
        batch.start { [self] in
            var outcome = await runner.run()
            if control.stop == .cancel, let directory {
                do {
                    // In a task of its own: this one was cancelled, and the aborts must still go out.
                    try await Task { try await self.removeFiles(directory) }.value
                } catch {
                    outcome = OSSBatchRunOutcome(report: outcome.report, error: error)
                }
            }
            withExtendedLifetime(lock) {}
            let ended = outcome.report.state == .completed || outcome.report.state == .cancelled
            state.withLockedValue { state in
                state.running[id] = nil
                if ended { state.sources[id] = nil }
            }
            return outcome
        }
        return batch
    }

    /// `request` as its journal keeps it: local paths relative to ``baseDirectoryURL`` when they lie inside it (an
    /// iOS app's container moves across updates and restores), absolute otherwise.
    private func portable(_ request: OSSBatchRequest) -> OSSBatchRequest {
        guard let baseDirectoryURL else { return request }
        let base = OSSBaseDirectory(path: baseDirectoryURL.path)
        return request.mappingPaths { base.portable($0) }
    }

    /// A journal's request with its local paths absolute again.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when one is relative and there is no base directory.
    private func resolved(_ stored: OSSBatchRequest) throws -> OSSBatchRequest {
        let base = baseDirectoryURL.map { OSSBaseDirectory(path: $0.path) }
        return try stored.mappingPaths { path in
            do {
                return try OSSBaseDirectory.resolve(path, against: base)
            } catch {
                throw OSSClientError(
                    .invalidArgument,
                    "the batch's path \(path) is relative to a base directory; make the manager with baseDirectoryURL",
                    underlying: error)
            }
        }
    }

    private func existingBatch(_ id: String) throws -> OSSBatchDirectory {
        let directory = OSSBatchDirectory(recordDirectory: recordDirectoryPath, id: id)
        guard OSSBatchDirectory.isBatchId(id), FileManager.default.fileExists(atPath: directory.journalPath) else {
            throw OSSClientError(.invalidArgument, "no batch \(id) in \(recordDirectoryPath)")
        }
        return directory
    }

    private static func lockBatch(_ directory: OSSBatchDirectory) throws -> OSSRecordLock {
        do {
            return try OSSRecordLock.acquire(path: directory.lockPath)
        } catch .recordLocked {
            throw OSSClientError(
                .transferInUse, "the batch \(directory.id) is running in another process (its lock \(directory.lockPath) is held)")
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot take the lock \(directory.lockPath): \(error)", underlying: error)
        }
    }

    /// Aborts the multipart uploads and deletes the temporary files of the batch's transfers in flight (through
    /// their records), then removes its directory.
    private func removeFiles(_ directory: OSSBatchDirectory) async throws {
        let records = OSSRecordDirectory(
            path: directory.recordsPath, baseDirectory: baseDirectoryURL.map { OSSBaseDirectory(path: $0.path) })
        for entry in try records.entries() {
            try await records.terminate(name: entry.name, client: client)
        }
        try directory.remove()
    }
}
