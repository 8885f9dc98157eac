/// A run's book: the window and its mark, the journal, counts and problems. Owned by the run's task (never shared
/// with the item tasks), so it needs no lock.
final class OSSBatchLedger {
    /// Marks are written once this many items ended past the last one (and at the end).
    static let markInterval = 256

    let runner: OSSBatchRunner
    var journal: OSSBatchJournalWriter?
    var window = OSSBatchWindow(capacity: OSSBatchRunner.window)
    var counts = OSSBatchCounts()
    var problems: [OSSBatchItem] = []
    var omittedProblems = 0
    /// The first failed item.
    var firstFailure: OSSBatchItem?
    /// The first item whose failure ends the whole batch (``OSSBatchFailure/endsBatch``), whatever the policy.
    var batchEnding: OSSBatchItem?
    /// Items stopped before they ended (paused, cancelled).
    var interrupted = 0
    /// Bytes earlier runs had finished.
    var bytesFromEarlierRuns: Int64 = 0
    private var pendingMark: String?
    private var endedSinceMark = 0

    init(runner: OSSBatchRunner) {
        self.runner = runner
    }

    /// Whether the run stops dispatching: paused or cancelled, or stopped at its first failure.
    var stops: Bool {
        runner.control.stop != nil || batchEnding != nil
            || (firstFailure != nil && runner.options.failurePolicy == .stopOnFirstFailure)
    }

    /// An item an earlier run finished: counted as done, its bytes as resumed.
    func doneInEarlierRun(_ work: OSSBatchWork) {
        doneInEarlierRun(bytes: work.transfers ? work.bytes : 0)
    }

    /// An item an earlier run finished, with `bytes` transferred: counted as done, its bytes as resumed.
    func doneInEarlierRun(bytes: Int64) {
        counts.doneInEarlierRuns += 1
        bytesFromEarlierRuns += bytes
        runner.tracker.found(transferBytes: bytes)
        runner.tracker.resumed(bytes)
        runner.tracker.ended(failed: false)
    }

    /// A task's item came back.
    func settle(_ completion: OSSBatchCompletion) async throws {
        let work = completion.work
        guard let outcome = completion.outcome else {
            interrupted += 1
            if completion.resumable {
                try await journal?.append(.item(work.key, path: work.relativePath, .paused))
            }
            return
        }
        if let mark = window.end(completion.sequence) { pendingMark = mark }
        try await end(work.item(outcome))
    }

    /// An item ended: journaled (unless nothing was done to it, which the next run decides again), counted,
    /// reported.
    func end(_ item: OSSBatchItem) async throws {
        switch item.outcome {
        case .unchanged, .refused, .wouldUpload, .wouldDownload, .wouldDelete, .wouldCreateDirectory:
            break
        case .uploaded, .downloaded, .deleted, .createdDirectory, .failed:
            try await journal?.append(.item(item.key, path: item.relativePath, .ended, outcome: item.outcome, bytes: item.bytes))
        }
        endedSinceMark += 1
        if endedSinceMark >= Self.markInterval { try await writeMark() }
        counts.count(item.outcome)
        runner.tracker.ended(failed: item.outcome.isFailure)
        switch item.outcome {
        case .failed, .refused:
            if problems.count < OSSBatchReport.maximumListedProblems {
                problems.append(item)
            } else {
                omittedProblems += 1
            }
            if item.outcome.isFailure, firstFailure == nil {
                firstFailure = item
                if runner.options.failurePolicy == .stopOnFirstFailure { runner.control.pauseTransfers() }
            }
            if case .failed(let failure) = item.outcome, failure.endsBatch, batchEnding == nil {
                batchEnding = item
                runner.control.pauseTransfers()
            }
        default:
            break
        }
        runner.events.yield(.item(item))
        runner.emitProgress()
    }

    private func writeMark() async throws {
        endedSinceMark = 0
        guard let mark = pendingMark else { return }
        pendingMark = nil
        try await journal?.append(.mark(mark))
    }

    /// Writes the last mark and the run's end, closes the journal, and removes the batch when it completed.
    func finish(_ state: OSSBatchState) async throws {
        guard let journal else { return }
        defer { self.journal = nil }
        try await writeMark()
        try await journal.append(.end(state))
        try await journal.close()
        if state == .completed { try runner.directory?.remove() }
    }

    func report(state: OSSBatchState, duration: Duration) -> OSSBatchReport {
        OSSBatchReport(
            batchId: runner.id, state: state, dryRun: runner.isDryRun, counts: counts,
            bytesTransferred: runner.tracker.movedBytes, bytesFromEarlierRuns: bytesFromEarlierRuns, problems: problems,
            omittedProblems: omittedProblems, duration: duration)
    }
}
