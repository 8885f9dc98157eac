import Foundation
import OSSResumable

/// Directory transfers (batches): a persistent queue of files in the manager's record directory.
///
/// Each batch has a directory `<record directory>/batches/<id>/` holding its append-only journal (see
/// ``OSSBatchJournalEntry``), the checkpoint records of its resumable transfers in flight, and a lock (one run of
/// a batch at a time, across processes). After a kill or a relaunch, ``batches()`` lists them and
/// ``resumeBatch(_:)`` continues one: files that ended are not sent again, a file in flight resumes from its own
/// checkpoint record, failed files are tried again.
extension OSSTransferManager {
    /// Uploads the files under `directory` to `prefix` (see ``OSSDirectoryTransferRequest``).
    public func uploadDirectory(
        _ directory: URL, toBucket bucketName: String, prefix: String,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) async throws -> OSSBatch {
        try await startBatch(.upload(from: directory, toBucket: bucketName, prefix: prefix, options: options))
    }

    /// Downloads the objects under `prefix` into `directory` (see ``OSSDirectoryTransferRequest``).
    public func downloadDirectory(
        fromBucket bucketName: String, prefix: String, to directory: URL,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) async throws -> OSSBatch {
        try await startBatch(.download(fromBucket: bucketName, prefix: prefix, to: directory, options: options))
    }

    /// Starts a batch and returns it running (a dry run keeps no journal and cannot be resumed).
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` for a bad request (naming the value), `fileCantWrite` when
    ///   the batch's directory cannot be made.
    public func startBatch(_ request: OSSDirectoryTransferRequest) async throws -> OSSBatch {
        try request.validate()
        var request = request
        request.prefix = OSSDirectoryTransferRequest.directoryPrefix(request.prefix)
        if request.options.crcFlag == nil { request.options.crcFlag = client.configuration.crcCheckEnabled }
        let id = UUID().uuidString.lowercased()
        let stored = portable(request)
        guard !request.options.dryRun else {
            return launch(id: id, request: request, stored: stored, directory: nil, lock: nil, replay: nil)
        }
        let directory = OSSBatchDirectory(recordDirectory: recordDirectoryPath, id: id)
        try directory.create()
        let lock = try Self.lockBatch(directory)
        return launch(id: id, request: request, stored: stored, directory: directory, lock: lock, replay: nil)
    }

    /// Resumes the batch `id` (paused, stopped, interrupted by a kill, failed, or completed with failures): the
    /// files an earlier run finished are skipped without a request, a file in flight resumes from its checkpoint
    /// record, failed files are tried again. A batch already running here is returned as it is.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no batch `id`; `transferInUse` when another
    ///   process runs it; `fileCantRead` when its journal cannot be read.
    public func resumeBatch(_ id: String) async throws -> OSSBatch {
        if let running = batchRegistry[id] { return running }
        let directory = try existingBatch(id)
        let lock = try Self.lockBatch(directory)
        let replay = try await OSSBatchJournalReplay.read(path: directory.journalPath)
        return launch(
            id: id, request: try resolved(replay.request), stored: replay.request, directory: directory, lock: lock,
            replay: replay)
    }

    /// The batch `id` if it is running in this manager.
    public func runningBatch(_ id: String) -> OSSBatch? {
        batchRegistry[id]
    }

    /// Every batch in the record directory, oldest first: its request, state (``OSSBatchState/running`` when this
    /// manager or another process runs it), counts from its journal, and the files in flight.
    ///
    /// - Throws: ``OSSClientError`` `fileCantRead` when the directory cannot be listed. A batch whose journal
    ///   cannot be read is left out.
    public func batches() async throws -> [OSSBatchInfo] {
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
            if let info = try? await batchInfo(name) { infos.append(info) }
        }
        return infos.sorted { ($0.created, $0.id) < ($1.created, $1.id) }
    }

    /// The batch `id` as ``batches()`` describes it.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no batch `id`, `fileCantRead` or
    ///   `invalidArgument` when its journal cannot be read.
    public func batchInfo(_ id: String) async throws -> OSSBatchInfo {
        let directory = try existingBatch(id)
        let replay = try await OSSBatchJournalReplay.read(path: directory.journalPath)
        var state = replay.state
        if batchRegistry[id] != nil {
            state = .running
        } else if case .failure(.recordLocked) = Result(catching: { () throws(OSSResumableError) in
            try OSSRecordLock.acquire(path: directory.lockPath)
        }) {
            state = .running
        }
        return OSSBatchInfo(
            id: id, request: (try? resolved(replay.request)) ?? replay.request, state: state, created: replay.created, counts: replay.counts,
            bytesDone: replay.bytesDone, inFlight: replay.inFlight.sorted(by: OSSKeyOrder.precedes))
    }

    /// Removes the batch `id`: stops it if it runs here, aborts the multipart uploads of its files in flight,
    /// deletes their temporary files, and removes its journal. Files and objects already transferred stay.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no batch `id`; `transferInUse` when another
    ///   process runs it; the error of an abort (the batch is then kept, so removing it again retries).
    public func removeBatch(_ id: String) async throws {
        if let running = batchRegistry[id] {
            running.cancel()
            _ = try? await running.result()
            return
        }
        let directory = try existingBatch(id)
        let lock = try Self.lockBatch(directory)
        defer { withExtendedLifetime(lock) {} }
        try await Self.removeBatchFiles(directory, client: client, baseDirectoryURL: baseDirectoryURL)
    }

    // MARK: - Running

    /// Starts the run of `request` (absolute paths), whose journal holds `stored` (its local directory relative to
    /// the base directory when it lies inside it).
    private func launch(
        id: String, request: OSSDirectoryTransferRequest, stored: OSSDirectoryTransferRequest,
        directory: OSSBatchDirectory?, lock: OSSRecordLock?, replay: OSSBatchJournalReplay?
    ) -> OSSBatch {
        let (events, continuation) = AsyncStream.makeStream(
            of: OSSBatchEvent.self, bufferingPolicy: .bufferingNewest(OSSTransferEventHub.bufferSize))
        let tracker = OSSBatchProgressTracker(fileOperation: request.direction)
        let control = OSSBatchControl()
        let batch = OSSBatch(id: id, request: request, events: events, tracker: tracker, control: control)
        // The transfers' records are relative to the base directory too, so they survive it moving.
        let base = OSSBaseDirectory.isRelative(stored.localDirectoryPath) ? baseDirectoryURL : nil
        let runner = OSSBatchRunner(
            id: id, client: client, request: request, journalRequest: stored, baseDirectoryURL: base,
            directory: directory, replay: replay, tracker: tracker, control: control, events: continuation)
        let (registry, client, managerBase) = (batchRegistry, self.client, baseDirectoryURL)
        if directory != nil { registry.add(batch) }
        batch.start {
            var outcome = await runner.run()
            if control.stop == .cancel, let directory {
                do {
                    // In a task of its own: this one was cancelled, and the aborts must still go out.
                    try await Task {
                        try await Self.removeBatchFiles(directory, client: client, baseDirectoryURL: managerBase)
                    }.value
                } catch {
                    outcome = OSSBatchRunOutcome(report: outcome.report, error: error)
                }
            }
            withExtendedLifetime(lock) {}
            registry.remove(id)
            return outcome
        }
        return batch
    }

    /// `request` as its journal keeps it: the local directory relative to ``baseDirectoryURL`` when it lies inside
    /// it (an iOS app's container moves across updates and restores), absolute otherwise.
    private nonisolated func portable(_ request: OSSDirectoryTransferRequest) -> OSSDirectoryTransferRequest {
        guard let baseDirectoryURL else { return request }
        var stored = request
        stored.localDirectoryPath = OSSBaseDirectory(path: baseDirectoryURL.path).portable(request.localDirectoryPath)
        return stored
    }

    /// A journal's request with its local directory absolute again.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when it is relative and this manager has no base directory.
    private nonisolated func resolved(_ stored: OSSDirectoryTransferRequest) throws -> OSSDirectoryTransferRequest {
        var request = stored
        do {
            request.localDirectoryPath = try OSSBaseDirectory.resolve(
                stored.localDirectoryPath, against: baseDirectoryURL.map { OSSBaseDirectory(path: $0.path) })
        } catch {
            throw OSSClientError(
                .invalidArgument,
                "the batch's directory \(stored.localDirectoryPath) is relative to a base directory; make the manager with baseDirectoryURL",
                underlying: error)
        }
        return request
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

    /// Aborts the multipart uploads and deletes the temporary files of the batch's transfers in flight, then
    /// removes its directory.
    static func removeBatchFiles(_ directory: OSSBatchDirectory, client: OSSClient, baseDirectoryURL: URL?) async throws {
        let records = OSSTransferManager(
            client: client, recordDirectoryPath: directory.recordsPath, baseDirectoryURL: baseDirectoryURL)
        for transfer in try await records.transfers() {
            try await records.terminate(transfer.id)
        }
        try directory.remove()
    }
}
