import Foundation

/// A running batch: a directory upload, download or sync, or a list of items, started or resumed by an
/// ``OSSTransferManager``.
///
/// ```swift
/// let batch = try await manager.startBatch(request)
/// Task {
///     for await event in batch.events {
///         if case .item(let item) = event, item.outcome.isFailure { print("failed:", item.key) }
///     }
/// }
/// let report = try await batch.result()
/// print(report.counts.uploaded, "uploaded,", report.counts.unchanged, "unchanged,", report.counts.failed, "failed")
/// ```
///
/// The batch runs on its own; ``result()`` waits for it. Cancelling the task that waits in ``result()`` pauses the
/// batch, as ``pause()`` does.
public final class OSSBatch: Sendable {
    /// The batch's id: the name of its directory under `<record directory>/batches/`, given to
    /// ``OSSTransferManager/resumeBatch(_:sources:)``. A dry run has an id but keeps nothing.
    public let id: String
    public let request: OSSBatchRequest
    /// Items as they end, progress at most about four times a second, and the end. One consumer; the newest
    /// 4096 events are kept while nobody reads, so memory stays bounded whatever the number of files.
    public let events: AsyncStream<OSSBatchEvent>
    /// A Foundation `Progress` for a progress view: unit counts in bytes, file counts in its user info
    /// (`fileTotalCount`, `fileCompletedCount`), throughput and estimated time remaining. Cancelling it cancels
    /// the batch; pausing it pauses the batch.
    public var progress: Progress { tracker.progress }

    let tracker: OSSBatchProgressTracker
    let control: OSSBatchControl
    private let run: OSSLockedValue<Task<OSSBatchRunOutcome, Never>?>
    private let ended = OSSLockedValue<OSSBatchRunOutcome?>(nil)

    init(
        id: String, request: OSSBatchRequest, events: AsyncStream<OSSBatchEvent>,
        tracker: OSSBatchProgressTracker, control: OSSBatchControl
    ) {
        self.id = id
        self.request = request
        self.events = events
        self.tracker = tracker
        self.control = control
        run = OSSLockedValue(nil)
        tracker.progress.isCancellable = true
        tracker.progress.isPausable = true
        tracker.progress.cancellationHandler = { [control] in control.request(.cancel) }
        tracker.progress.pausingHandler = { [control] in control.request(.pause) }
    }

    /// Starts `body` as the batch's run.
    func start(_ body: @escaping @Sendable () async -> OSSBatchRunOutcome) {
        let ended = self.ended
        let task = Task {
            let outcome = await body()
            ended.withLockedValue { $0 = outcome }
            return outcome
        }
        run.withLockedValue { $0 = task }
        control.attach { task.cancel() }
    }

    /// The progress now.
    public var snapshot: OSSBatchProgress { tracker.snapshot }

    /// The report of the run, once it has ended (also when it paused, stopped or failed).
    public var report: OSSBatchReport? { ended.withLockedValue { $0?.report } }

    /// Whether the run has ended.
    public var isFinished: Bool { report != nil }

    /// Pauses the batch: no new file starts, the resumable transfers in flight are paused (their upload ids,
    /// temporary files and records kept) and the single requests in flight are cancelled. The journal is kept:
    /// ``OSSTransferManager/resumeBatch(_:sources:)`` continues where it stopped. ``result()`` throws `taskPaused`.
    public func pause() {
        control.request(.pause)
    }

    /// Cancels the batch and removes it: stops as ``pause()`` does, then aborts the multipart uploads in flight,
    /// deletes the temporary files of downloads in flight and removes the journal. Files and objects already
    /// transferred stay. ``result()`` throws `taskCancelled`.
    public func cancel() {
        control.request(.cancel)
    }

    /// Waits for the run to end and returns its report, failures included (``OSSBatchReport/hasFailures``).
    ///
    /// - Throws: ``OSSClientError`` `taskPaused` (paused, or the waiting task cancelled), `taskCancelled`
    ///   (``cancel()``), ``OSSClientErrorCode/batchStopped`` (``OSSBatchFailurePolicy/stopOnFirstFailure``); or
    ///   what stopped the batch itself (a listing that failed after retries, a directory that cannot be read,
    ///   a journal that cannot be written). ``report`` has the report then too.
    public func result() async throws -> OSSBatchReport {
        guard let task = run.withLockedValue({ $0 }) else {
            throw OSSClientError(.exceptionCaught, "the batch \(id) was never started")
        }
        let outcome = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            control.request(.pause)
        }
        if let error = outcome.error { throw error }
        return outcome.report
    }
}
