#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

/// Where a batch keeps its journal, its resumable transfers' checkpoint records and its lock:
/// `<record directory>/batches/<id>/{journal,records/,lock}`.
struct OSSBatchDirectory: Sendable {
    static let folder = "batches"

    let id: String
    let path: String

    init(recordDirectory: String, id: String) {
        self.id = id
        path = recordDirectory + "/" + Self.folder + "/" + id
    }

    var journalPath: String { path + "/journal" }
    var recordsPath: String { path + "/records" }
    var lockPath: String { path + "/lock" }

    /// Whether `name` can be a batch id (what ``OSSTransferManager`` makes: lowercase hex and dashes).
    static func isBatchId(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.allSatisfy { $0.isHexDigit || $0 == "-" }
    }

    func create() throws {
        do {
            try FileManager.default.createDirectory(atPath: recordsPath, withIntermediateDirectories: true)
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot create the batch directory \(path)", underlying: error)
        }
    }

    func remove() throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot remove the batch directory \(path)", underlying: error)
        }
    }
}

/// What a run ended with: its report, and the error ``OSSBatch/result()`` throws instead of returning it.
struct OSSBatchRunOutcome: Sendable {
    let report: OSSBatchReport
    let error: (any Error)?
}

/// An item that ended in a task, back at the run.
struct OSSBatchCompletion: Sendable {
    let sequence: UInt64
    let work: OSSBatchWork
    /// `nil`: stopped by a pause, a cancel or a stop (not ended; a resume does it again).
    let outcome: OSSBatchItemOutcome?
    /// Whether it ran as a resumable transfer (its journal entry said `running`).
    let resumable: Bool
}

/// Runs one batch: the planner's steps in key order, at most ``OSSDirectoryTransferOptions/filesAtOnce`` items
/// at once in a task group, each ended item journaled, counted and reported as it ends.
final class OSSBatchRunner: Sendable {
    /// The most items open past the mark (see ``OSSBatchWindow``).
    static let window = 10_000

    let id: String
    let client: OSSClient
    /// The request, its CRC choice fixed (``OSSDirectoryTransferOptions/crcFlag`` set), its paths absolute.
    let request: OSSBatchRequest
    /// The request as the journal's header keeps it (local paths relative to the base directory).
    let journalRequest: OSSBatchRequest
    /// The `Data` and streams of a list upload.
    let sources: OSSBatchSources
    /// The base directory the resumable transfers record their paths relative to, when the local directory lies
    /// inside the manager's.
    let baseDirectoryURL: URL?
    /// The batch's directory; `nil` for a dry run, which keeps nothing.
    let directory: OSSBatchDirectory?
    /// What earlier runs did, for a resumed batch.
    let replay: OSSBatchJournalReplay?
    let tracker: OSSBatchProgressTracker
    let control: OSSBatchControl
    let events: AsyncStream<OSSBatchEvent>.Continuation
    /// Moves the files instead of the batch's own requests (``OSSBatchFileTransport``).
    let fileTransport: (any OSSBatchFileTransport)?

    init(
        id: String, client: OSSClient, request: OSSBatchRequest, journalRequest: OSSBatchRequest,
        sources: OSSBatchSources, baseDirectoryURL: URL?, directory: OSSBatchDirectory?, replay: OSSBatchJournalReplay?,
        tracker: OSSBatchProgressTracker, control: OSSBatchControl, events: AsyncStream<OSSBatchEvent>.Continuation,
        fileTransport: (any OSSBatchFileTransport)? = nil
    ) {
        self.id = id
        self.client = client
        self.request = request
        self.journalRequest = journalRequest
        self.sources = sources
        self.baseDirectoryURL = baseDirectoryURL
        self.directory = directory
        self.replay = replay
        self.tracker = tracker
        self.control = control
        self.events = events
        self.fileTransport = fileTransport
    }

    var options: OSSDirectoryTransferOptions { request.options }
    var isDryRun: Bool { options.dryRun }
    var crcEnabled: Bool { options.crcFlag ?? client.configuration.crcCheckEnabled }
    var root: String { request.localRoot }

    /// The local file of `relativePath`.
    func localPath(_ relativePath: String) -> String { root + "/" + relativePath }

    /// The local file of `work`: a list item's own, else its relative path's.
    func localPath(of work: OSSBatchWork) -> String { work.localFile ?? localPath(work.relativePath) }

    /// The bytes `work` counts in the byte totals: those it may move (none in a dry run); `nil` for none.
    func transferBytes(_ work: OSSBatchWork) -> Int64? {
        work.transfers && !isDryRun ? work.bytes : nil
    }

    /// Whether an earlier run of this batch had started `work` and not ended it when it stopped.
    func wasInFlight(_ work: OSSBatchWork) -> Bool { replay?.inFlight.contains(work.key) == true }

    /// Whether `work` runs as a resumable transfer (large enough, not empty, and not a dry run).
    func isResumable(_ work: OSSBatchWork) -> Bool {
        if case .uploadSource = work.action { return false }
        return !isDryRun && work.transfers && work.bytes > 0 && work.bytes >= options.singleRequestThreshold
    }

    /// Sends a progress event when one is due (`force`: now).
    func emitProgress(force: Bool = false) {
        if let snapshot = tracker.emission(force: force) { events.yield(.progress(snapshot)) }
    }

    // MARK: - The run

    func run() async -> OSSBatchRunOutcome {
        let started = ContinuousClock.now
        let ledger = OSSBatchLedger(runner: self)
        var failure: (any Error)?
        var exhausted = false
        do {
            if let directory {
                ledger.journal = try await OSSBatchJournalWriter.open(
                    path: directory.journalPath, header: .header(journalRequest))
                try await ledger.journal?.append(.run())
            }
            if request.direction == .download, !isDryRun, !root.isEmpty {
                do {
                    try await OSSBatchPaths.makeDirectories(root: root, relativeDirectory: "", followsLinks: true)
                } catch {
                    throw OSSClientError(.fileCantWrite, "cannot create the directory \(root)", underlying: error)
                }
            }
            var steps: any OSSBatchSteps
            switch request {
            case .directory(let directory):
                let localExists = FileManager.default.fileExists(atPath: root)
                steps = try OSSBatchPlanner(request: directory, client: client, localExists: localExists)
            case .list(let list):
                steps = OSSBatchListPlanner(request: list)
            }
            exhausted = try await dispatch(&steps, ledger)
        } catch {
            failure = error
        }
        if exhausted { tracker.totalsFinal() }
        let state = endState(ledger: ledger, exhausted: exhausted, failure: failure)
        do {
            try await ledger.finish(state)
        } catch where failure == nil {
            failure = error
        } catch {}
        emitProgress(force: true)
        events.yield(.finished(state))
        events.finish()
        let report = ledger.report(state: state, duration: .now - started)
        return OSSBatchRunOutcome(report: report, error: error(for: state, ledger: ledger, failure: failure))
    }

    /// Runs the planner's steps to the end (returns `true`) or until the batch stops (`false`).
    private func dispatch(_ planner: inout some OSSBatchSteps, _ ledger: OSSBatchLedger) async throws -> Bool {
        try await withThrowingTaskGroup(of: OSSBatchCompletion.self) { group in
            var running = 0
            var exhausted = false
            var planFailure: (any Error)?
            dispatching: while !ledger.stops {
                while running >= options.filesAtOnce || ledger.window.isFull, let done = try await group.next() {
                    running -= 1
                    try await ledger.settle(done)
                    if ledger.stops { break dispatching }
                }
                let step: OSSBatchStep?
                do {
                    step = try await planner.next()
                } catch {
                    if control.stop == nil { planFailure = error }
                    break
                }
                guard let step else {
                    exhausted = true
                    break
                }
                switch step {
                case .report(let item):
                    // A sync finds what an earlier run of the batch sent unchanged: counted with the earlier runs.
                    if let replay, item.outcome == .unchanged, replay.isDone(item.key) {
                        ledger.doneInEarlierRun(bytes: item.bytes)
                        continue
                    }
                    tracker.found(transferBytes: nil)
                    try await ledger.end(item)
                case .work(let work):
                    if let replay, replay.isDone(work.key) {
                        ledger.doneInEarlierRun(work)
                        continue
                    }
                    tracker.found(transferBytes: transferBytes(work))
                    if isDryRun, let planned = work.plannedOutcome {
                        try await ledger.end(work.item(planned))
                        continue
                    }
                    let sequence = ledger.window.open(work.key)
                    let resumable = isResumable(work)
                    // Every transfer is journaled as running before it starts, small ones too: a next run then checks
                    // whether one the process finished after its last journal entry is already there.
                    if !isDryRun, work.transfers {
                        try await ledger.journal?.append(.item(work.key, path: work.relativePath, .running))
                    }
                    events.yield(.started(key: work.key, bytes: work.bytes))
                    group.addTask {
                        let outcome = await self.perform(work)
                        return OSSBatchCompletion(sequence: sequence, work: work, outcome: outcome, resumable: resumable)
                    }
                    running += 1
                }
            }
            if ledger.stops { group.cancelAll() }
            while let done = try await group.next() { try await ledger.settle(done) }
            if let planFailure { throw planFailure }
            return exhausted && !ledger.stops
        }
    }

    /// Runs one item and returns how it ended; `nil` when it was stopped (paused or cancelled) before it ended.
    func perform(_ work: OSSBatchWork) async -> OSSBatchItemOutcome? {
        var unknownLength = false
        if case .uploadSource(let item) = work.action, item.size == nil { unknownLength = true }
        let meter = OSSBatchFileMeter(
            size: transferBytes(work) ?? 0, firstReportIsResumed: wasInFlight(work) && isResumable(work),
            growsWithReports: unknownLength, tracker: tracker, onProgress: { [self] in emitProgress() })
        do {
            let outcome = try await run(work, meter: meter)
            if outcome == .uploaded || outcome == .downloaded { meter.finish() } else { meter.withdraw() }
            return outcome
        } catch {
            meter.withdraw()
            if case .failed(let failure) = error as? OSSBatchItemProblem { return .failed(failure) }
            if case .refused(let refusal) = error as? OSSBatchItemProblem { return .refused(refusal) }
            if error.isTransferCancellation || Task.isCancelled { return nil }
            return .failed(OSSBatchFailure(error))
        }
    }

    private func run(_ work: OSSBatchWork, meter: OSSBatchFileMeter) async throws -> OSSBatchItemOutcome {
        switch work.action {
        case .upload(let entry):
            return try await upload(work, entry, meter: meter)
        case .uploadUnlessEqual(let entry):
            if try await localFile(work.relativePath, size: entry.size, hasCRCOfObject: work.key) { return .unchanged }
            return isDryRun ? .wouldUpload : try await upload(work, entry, meter: meter)
        case .uploadUnlessStamped(let entry):
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: work.key))
            if head.contentLength == entry.size,
                head.metadata[Self.modificationTimeMetadata] == Self.stamp(entry.modificationNanoseconds)
            {
                return .unchanged
            }
            return isDryRun ? .wouldUpload : try await upload(work, entry, meter: meter)
        case .download(let summary):
            return try await download(work, summary, meter: meter)
        case .downloadUnlessEqual(let summary, let local):
            if try await localFile(work.relativePath, size: local.size, hasCRCOfObject: work.key) {
                if !isDryRun, let written = summary.lastModified { try await setModificationDate(written, of: work.relativePath) }
                return .unchanged
            }
            return isDryRun ? .wouldDownload : try await download(work, summary, meter: meter)
        case .deleteObject:
            try await client.deleteObject(OSSDeleteObjectRequest(bucketName: request.bucketName, objectKey: work.key))
            return .deleted
        case .deleteFile(let entry):
            return try await deleteFile(work.relativePath, seen: entry)
        case .makeDirectory:
            try await OSSBatchPaths.makeDirectories(
                root: root, relativeDirectory: work.relativePath, followsLinks: options.symbolicLinks == .follow)
            return .createdDirectory
        case .uploadSource(let item):
            return try await upload(work, item, meter: meter)
        case .downloadKey:
            let head = try await client.headObject(
                OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: work.key, versionId: work.versionId))
            let summary = OSSObjectSummary(
                objectKey: work.key, lastModified: head.lastModified, eTag: head.eTag, size: head.contentLength,
                storageClass: head.storageClass, objectType: head.objectType)
            var sized = OSSBatchWork(key: work.key, relativePath: work.relativePath, bytes: summary.size, action: .download(summary))
            sized.versionId = work.versionId
            meter.expect(summary.size, firstReportIsResumed: wasInFlight(sized) && isResumable(sized))
            return try await download(sized, summary, meter: meter)
        }
    }

    /// Whether the local file holds the object's bytes: equal sizes and CRC-64s (an object without a CRC-64 is
    /// taken as different).
    private func localFile(_ relativePath: String, size: Int64, hasCRCOfObject key: String) async throws -> Bool {
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: key))
        guard head.contentLength == size, let objectCRC = head.crc64 else { return false }
        return try await OSSFileDigest.crc64(path: localPath(relativePath), offset: 0, length: size) == objectCRC
    }

    // MARK: - Ending

    private func endState(ledger: OSSBatchLedger, exhausted: Bool, failure: (any Error)?) -> OSSBatchState {
        if let stop = control.stop, !(exhausted && ledger.interrupted == 0) { return stop == .cancel ? .cancelled : .paused }
        if failure != nil { return .failed }
        if ledger.batchEnding != nil { return .stopped }
        if ledger.firstFailure != nil, options.failurePolicy == .stopOnFirstFailure { return .stopped }
        return ledger.counts.failed > 0 ? .completedWithFailures : .completed
    }

    private func error(for state: OSSBatchState, ledger: OSSBatchLedger, failure: (any Error)?) -> (any Error)? {
        switch state {
        case .cancelled:
            return OSSClientError(.taskCancelled, "the batch \(id) was cancelled and removed")
        case .paused:
            return OSSClientError(
                .taskPaused, "the batch \(id) was paused; its journal and the transfers in flight were kept for resumeBatch")
        case .stopped:
            if let item = ledger.batchEnding, case .failed(let reason) = item.outcome {
                return OSSClientError(
                    .batchStopped,
                    "the batch \(id) stopped at \(item.key): \(reason) (bucket \(request.bucketName)): "
                        + reason.remedy(bucket: request.bucketName),
                    underlying: reason)
            }
            let item = ledger.firstFailure
            let reason: OSSBatchFailure? = if case .failed(let failure)? = item?.outcome { failure } else { nil }
            return OSSClientError(
                .batchStopped,
                "the batch \(id) stopped at its first failure: \(item?.key ?? "?"): \(reason.map { "\($0)" } ?? "?")",
                underlying: reason)
        case .failed:
            return failure
        case .running, .interrupted, .completed, .completedWithFailures:
            return nil
        }
    }
}

extension OSSBatchWork {
    /// The item this work became.
    func item(_ outcome: OSSBatchItemOutcome) -> OSSBatchItem {
        OSSBatchItem(key: key, relativePath: relativePath, outcome: outcome, bytes: bytes)
    }
}
