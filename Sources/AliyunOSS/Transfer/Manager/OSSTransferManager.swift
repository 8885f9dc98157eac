import Foundation
import OSSResumable

/// Lists, resumes and terminates the resumable transfers whose checkpoint records are in one directory, also
/// after the app restarted (like Kii's transfer manager).
///
/// ```swift
/// let manager = OSSTransferManager(client: client, recordDirectoryPath: recordsPath)
/// for transfer in try await manager.transfers() where transfer.state == .suspended {
///     print(transfer.objectKey, transfer.bytesDone, "/", transfer.totalBytes)
/// }
/// let outcomes = await manager.resumeAll()
/// ```
///
/// The manager rebuilds each request from its record (bucket, key, local file, part size, CRC mode, range) and
/// stops it with the request's `pause()`, so ``pause(_:)`` (and cancelling the task awaiting ``resume(_:)``)
/// keeps the upload id, the temporary file and the record for a later ``resume(_:)``. Options that are not in records (content type, metadata) were
/// already applied when the upload was initiated; the upload callback is kept in the record and sent on Complete.
public actor OSSTransferManager {
    /// The client transfers run with.
    public nonisolated let client: OSSClient
    /// The record directory (absolute).
    public nonisolated let recordDirectoryPath: String
    /// The directory the transfers' local paths are relative to (the app's container on iOS), if any: see
    /// ``OSSResumableUploadRequest/baseDirectoryURL``.
    public nonisolated let baseDirectoryURL: URL?
    /// How many parts each resumed transfer keeps in flight.
    public nonisolated let threadNum: Int
    /// When `.progress` events are sent: per confirmed part, or as bytes move.
    public nonisolated let progressGranularity: OSSTransferProgressGranularity
    /// State changes and progress of every transfer this manager runs or terminates, in order per transfer.
    /// A single consumer; the newest 4096 events are kept when nobody reads. For one transfer's events, with
    /// any number of consumers, see ``events(for:)``.
    public nonisolated let events: AsyncStream<OSSTransferEvent>
    /// The background transfers' service, if any: its transfers are listed, paused, resumed and terminated
    /// with the others (see ``pauseBackground(_:)``, ``resumeBackground(_:)``, ``reconcileBackground()``).
    public nonisolated let backgroundService: OSSBackgroundTransferService?

    nonisolated let hub: OSSTransferEventHub  // bg: internal, so background transfers report through it too
    /// The batch layer's one entry point: the directory and list transfers of this manager's record directory
    /// (`OSSTransferManager+Batch`).
    nonisolated let batchStore: OSSBatchStore
    private let directory: OSSRecordDirectory
    private nonisolated let baseDirectory: OSSBaseDirectory?
    private var running: [String: Running] = [:]

    private struct Running {
        /// Pauses the run (the request's `pause()`): everything needed to resume is kept.
        let pause: @Sendable () -> Void
        let task: Task<OSSTransferOutcome, any Error>
    }

    /// - Parameters:
    ///   - recordDirectoryPath: the directory given as `recordDirectoryPath` to the resumable requests (relative
    ///     to `baseDirectoryURL` when it is a relative path and there is a base directory).
    ///   - baseDirectoryURL: the base directory the transfers were started with (their
    ///     ``OSSResumableUploadRequest/baseDirectoryURL``), as it is now: on iOS, the container of this launch,
    ///     even when the transfers were started in a container at another path. Records' relative paths resolve
    ///     against it, resumed transfers and tokens use it. Without it, records written with a base directory
    ///     are listed as `noEntry` (`recordNeedsBaseDirectory`).
    ///   - threadNum: parts in flight per resumed transfer (1...64).
    ///   - progressGranularity: `.bytes` sends `.progress` events as the parts' bytes move, not only per
    ///     confirmed part.
    ///   - backgroundService: the service of the app's background transfers: they are listed beside the others.
    ///   - fileTransport: moves the files of this manager's batches (directory and list transfers) instead of the
    ///     batches' own requests, e.g. to encrypt them on the device (``OSSBatchFileTransport``).
    public init(
        client: OSSClient, recordDirectoryPath: String, baseDirectoryURL: URL? = nil, threadNum: Int = 4,
        progressGranularity: OSSTransferProgressGranularity = .confirmedParts,
        backgroundService: OSSBackgroundTransferService? = nil, fileTransport: (any OSSBatchFileTransport)? = nil
    ) {
        self.client = client
        self.backgroundService = backgroundService
        let base = baseDirectoryURL.flatMap { $0.isFileURL ? OSSBaseDirectory(path: $0.path) : nil }
        baseDirectory = base
        self.baseDirectoryURL = base.map { URL(fileURLWithPath: $0.path, isDirectory: true) }
        directory = OSSRecordDirectory(path: recordDirectoryPath, baseDirectory: base)
        self.recordDirectoryPath = directory.path
        self.threadNum = threadNum
        self.progressGranularity = progressGranularity
        hub = OSSTransferEventHub()
        events = hub.all
        batchStore = OSSBatchStore(
            client: client, recordDirectoryPath: directory.path, baseDirectoryURL: self.baseDirectoryURL,
            fileTransport: fileTransport)
    }

    deinit {
        hub.finish()
    }

    /// The events of transfer `id` from now on — its state changes and progress, as in ``events`` — as a stream
    /// of its own. Any number of these may be open at once, each with one consumer; the newest 4096 events are
    /// kept when it is not read. The stream finishes after `.completed` or `.terminated`, or when the manager
    /// goes away.
    ///
    /// ```swift
    /// let updates = manager.events(for: transfer.id)
    /// Task {
    ///     for await event in updates {
    ///         if case .progress(let done, let total) = event.change { print(done, "/", total) }
    ///     }
    /// }
    /// try await manager.resume(transfer.id)
    /// ```
    public nonisolated func events(for id: String) -> AsyncStream<OSSTransferEvent> {
        hub.subscribe(id)
    }

    /// Every transfer with a record in the directory, sorted by id, then the ``backgroundService``'s transfers
    /// (``OSSTransfer/isBackground``).
    ///
    /// - Throws: ``OSSClientError`` `fileCantRead` when a directory cannot be listed or a background record read.
    public func transfers() throws -> [OSSTransfer] {
        try directory.entries().map(describe) + backgroundListing()
    }

    /// The transfer `id` (a background one too), or `nil` when it has no record.
    public func transfer(_ id: String) -> OSSTransfer? {
        directory.entry(name: id).map(describe) ?? (try? backgroundListing())?.first { $0.id == id }
    }

    /// Resumes the transfer `id` and returns when it finishes. ``pause(_:)``, or cancelling the calling task,
    /// pauses it: the record, the upload id and the temporary file are kept, and the call throws `taskPaused`
    /// (with a ``OSSClientError/resumeToken``). Resuming a transfer that is already running waits for that run.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no readable record `id`; otherwise what
    ///   ``OSSClient/resumableUpload(_:)`` or ``OSSClient/resumableDownload(_:)`` throws.
    @discardableResult
    public func resume(_ id: String) async throws -> OSSTransferOutcome {
        try refuseBackground(id, "resume")
        if let current = running[id] {
            return try await current.task.value
        }
        guard let entry = directory.entry(name: id) else {
            throw OSSClientError(.invalidArgument, "no transfer \(id) in \(recordDirectoryPath)")
        }
        let run = try makeRun(entry)
        running[id] = run
        hub.yield(OSSTransferEvent(id: id, change: .state(.ongoing)))
        do {
            let outcome = try await withTaskCancellationHandler {
                try await run.task.value
            } onCancel: {
                run.pause()
            }
            running[id] = nil
            hub.yield(OSSTransferEvent(id: id, change: .completed))
            return outcome
        } catch {
            running[id] = nil
            if !Self.isCancellation(error) {
                hub.yield(OSSTransferEvent(id: id, change: .failed(message: "\(error)")))
            }
            if let entry = directory.entry(name: id) {
                let state: OSSTransferState = if case .unusable = entry.content { .noEntry } else { .suspended }
                hub.yield(OSSTransferEvent(id: id, change: .state(state)))
            }
            throw error
        }
    }

    /// Resumes every suspended transfer at once and waits for all of them. One failure does not stop the others.
    /// Background transfers are not among them (``resumeBackground(_:)``).
    ///
    /// - Returns: each transfer's outcome or error, by id.
    public func resumeAll() async throws -> [String: Result<OSSTransferOutcome, any Error>] {
        let ids = try transfers().filter { $0.state == .suspended && !$0.isBackground }.map(\.id)
        return await withTaskGroup(of: (String, Result<OSSTransferOutcome, any Error>).self) { group in
            for id in ids {
                group.addTask {
                    do {
                        return (id, .success(try await self.resume(id)))
                    } catch {
                        return (id, .failure(error))
                    }
                }
            }
            var results: [String: Result<OSSTransferOutcome, any Error>] = [:]
            for await (id, result) in group { results[id] = result }
            return results
        }
    }

    /// Pauses the running transfer `id` with the request's `pause()`: it stops promptly and keeps everything
    /// needed to resume it (upload id, temporary file, record). Its ``resume(_:)`` call throws `taskPaused`.
    /// Does nothing when `id` is not running. A background transfer is paused with ``pauseBackground(_:)``
    /// (asynchronous: its tasks are withdrawn from the system).
    public func pause(_ id: String) {
        running[id]?.pause()
    }

    /// Removes the transfer `id` for good: stops it if it runs, aborts the multipart upload on the server (an
    /// upload already gone is fine) or deletes the download's temporary file, and removes the record. A
    /// background transfer's tasks are withdrawn from the system too (``terminateBackground(_:)``).
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no record `id`, `transferInUse` when
    ///   another process is running it, `fileCantWrite` when the record cannot be removed; or the
    ///   ``OSSServerError`` of the abort (the record is then kept, so terminating again retries).
    public func terminate(_ id: String) async throws {
        if try isBackgroundTransfer(id) {
            try await terminateBackground(id)
            return
        }
        if let current = running[id] {
            // Paused first (everything kept), then removed below exactly as a suspended transfer.
            current.pause()
            _ = try? await current.task.value
            running[id] = nil
        }
        try await directory.terminate(name: id, client: client)
        hub.yield(OSSTransferEvent(id: id, change: .terminated))
    }

    // MARK: - Resume tokens

    /// A Codable snapshot of transfer `id` (see ``OSSResumeToken``) that can be stored anywhere and given back to
    /// ``restore(_:)``, on this device after the record directory was cleared, or in another manager.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no record `id`, `cannotResumeUpload`/`cannotResumeDownload` when the
    ///   record cannot be read.
    public func resumeToken(for id: String) throws -> OSSResumeToken {
        guard let entry = directory.entry(name: id) else {
            throw OSSClientError(.invalidArgument, "no transfer \(id) in \(recordDirectoryPath)")
        }
        switch entry.content {
        case .upload(let record): return OSSResumeToken(upload: record, base: baseDirectory)
        case .download(let record): return OSSResumeToken(download: record, base: baseDirectory)
        case .unusable(let error):
            throw OSSClientError(
                Self.cannotResumeCode(forRecordName: id), "transfer \(id) cannot be resumed: \(error)",
                underlying: error)
        }
    }

    /// Writes the checkpoint record a token carries into the directory (replacing the transfer's record if there
    /// is one) and returns the transfer's id, ready for ``resume(_:)``. The upload id, the temporary file and the
    /// local file are checked when the transfer resumes: a file changed since, or an upload the server no longer
    /// has, is handled as for any record.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when the token's paths are relative to a base directory and
    ///   this manager has none; `transferInUse` when the transfer is running (here or in another
    ///   process), `fileCantWrite` when the record cannot be written.
    @discardableResult
    public func restore(_ token: OSSResumeToken) throws -> String {
        // The record name is the one a request with this manager's base directory computes.
        let token = token.relativized(to: baseDirectory)
        switch token.record {
        case .upload(let record): _ = try OSSResumeToken.resolving(record, against: baseDirectory)
        case .download(let record): _ = try OSSResumeToken.resolving(record, against: baseDirectory)
        }
        let name = token.recordName
        guard running[name] == nil else {
            throw OSSClientError(.transferInUse, "the transfer of record \(directory.store.recordPath(name: name)) is running in this manager")
        }
        let lock = try directory.lock(name: name)
        defer { withExtendedLifetime(lock) {} }
        do {
            switch token.record {
            case .upload(let record): try directory.store.save(record, name: name)
            case .download(let record): try directory.store.save(record, name: name)
            }
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot write the record of \(name)", underlying: error)
        }
        return name
    }

    // MARK: - Records to requests

    private func describe(_ entry: OSSRecordEntry) -> OSSTransfer {
        let isRunning = running[entry.name] != nil
        let kind: OSSTransferKind = entry.kind == .upload ? .upload : .download
        switch entry.content {
        case .upload(let record):
            let done = record.parts.reduce(Int64(0)) { $0 + $1.size }
            return OSSTransfer(
                id: entry.name, kind: kind, state: isRunning ? .ongoing : .suspended, bucketName: record.bucket,
                objectKey: record.key, filePath: record.filePath, uploadId: record.uploadId, temporaryFilePath: nil,
                partSize: record.partSize, bytesDone: done, totalBytes: record.fileIdentity.size,
                completedParts: record.parts.count, problem: nil)
        case .download(let record):
            let done = record.bytesDone
            return OSSTransfer(
                id: entry.name, kind: kind, state: isRunning ? .ongoing : .suspended, bucketName: record.bucket,
                objectKey: record.key, filePath: record.destinationPath, uploadId: nil,
                temporaryFilePath: record.tempFilePath, partSize: record.partSize, bytesDone: done,
                totalBytes: record.range.length, completedParts: record.parts.count, problem: nil,
                versionId: record.object.versionId)
        case .unusable(let error):
            return OSSTransfer(
                id: entry.name, kind: kind, state: isRunning ? .ongoing : .noEntry, bucketName: "", objectKey: "",
                filePath: "", uploadId: nil, temporaryFilePath: nil, partSize: 0, bytesDone: 0, totalBytes: 0,
                completedParts: 0, problem: "\(error)")
        }
    }

    private func makeRun(_ entry: OSSRecordEntry) throws -> Running {
        let id = entry.name
        let hub = self.hub
        let progress: OSSProgressHandler = { _, done, total in
            hub.yield(OSSTransferEvent(id: id, change: .progress(bytesDone: done, totalBytes: total)))
        }
        let client = self.client
        switch entry.content {
        case .upload(let record):
            var request = OSSResumableUploadRequest(
                bucketName: record.bucket, objectKey: record.key,
                uploadingFileURL: URL(fileURLWithPath: record.filePath), partSize: record.requestedPartSize,
                threadNum: threadNum, recordDirectoryPath: recordDirectoryPath, baseDirectoryURL: baseDirectoryURL,
                crcFlag: record.crcMode == .enabled, uploadProgress: progress)
            request.progressGranularity = progressGranularity
            request.sequential = record.sequential == true  // its record's name, and parts one at a time in order
            let upload = request
            let task = Task<OSSTransferOutcome, any Error> {
                let result = try await client.resumableUpload(upload)
                return .uploaded(result)
            }
            return Running(pause: { upload.pause() }, task: task)
        case .download(let record):
            var range: OSSObjectRange?
            if let requested = record.requestedRange {
                range = requested.last.map { .closed(requested.first, $0) } ?? .from(requested.first)
            }
            var request = OSSResumableDownloadRequest(
                bucketName: record.bucket, objectKey: record.key,
                downloadToFileURL: URL(fileURLWithPath: record.destinationPath), partSize: record.partSize,
                threadNum: threadNum, recordDirectoryPath: recordDirectoryPath, baseDirectoryURL: baseDirectoryURL,
                range: range,
                crcFlag: record.crcMode == .enabled, downloadProgress: progress)
            request.progressGranularity = progressGranularity
            let download = request
            let task = Task<OSSTransferOutcome, any Error> {
                let result = try await client.resumableDownload(download)
                return .downloaded(result)
            }
            return Running(pause: { download.pause() }, task: task)
        case .unusable(let error):
            throw OSSClientError(
                Self.cannotResumeCode(forRecordName: id), "transfer \(id) cannot be resumed: \(error)",
                underlying: error)
        }
    }

    /// `cannotResumeDownload` for a download's record, `cannotResumeUpload` otherwise.
    static func cannotResumeCode(forRecordName name: String) -> OSSClientErrorCode {
        OSSRecordDirectory.kind(ofRecordName: name) == .download ? .cannotResumeDownload : .cannotResumeUpload
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        OSSErrorDisposition(error) == .cancelled
    }
}
