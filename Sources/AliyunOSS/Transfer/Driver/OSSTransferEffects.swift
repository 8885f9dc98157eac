import OSSResumable

/// The I/O of one kind of resumable transfer, run by the ``OSSTransferDriver`` for its state machine's actions.
///
/// Everything but ``partMover(for:)``'s closure runs on the driver's task, one call at a time. The closure runs
/// in the driver's child tasks (at most `threadNum` at once) and only moves one part's bytes.
protocol OSSTransferEffects: AnyObject {
    associatedtype Machine: OSSTransferMachine

    /// Moves one part: sends it (upload) or fetches it into the file (download), calling `progress` with the
    /// bytes its current attempt moved, and returns the event that confirms it. On the way it may post
    /// checkpoints for the machine to `checkpoint` (a download part's written prefix); posting never waits.
    typealias PartMover = @Sendable (
        _ part: OSSPart, _ progress: (@Sendable (Int64) -> Void)?, _ checkpoint: @escaping @Sendable (Machine.Event) -> Void
    ) async throws -> Machine.Event

    /// Performs an ``OSSTransferStep/ask(restartsProgress:)`` action and returns the machine's answer.
    func answer(_ action: Machine.Action, machine: Machine) async throws -> Machine.Event

    /// Performs an ``OSSTransferStep/perform`` action. A throw fails the transfer.
    func perform(_ action: Machine.Action) async throws

    /// Saves `record` atomically (and what it lists durably). A throw fails the transfer, keeping the last record.
    func save(_ record: Machine.Record) async throws

    /// A writer that saves records in the background while parts move, or `nil` to save each one before going on.
    /// Asked when parts start (after ``partMover(for:)``).
    func backgroundWriter() -> OSSTransferRecordWriter<Machine.Record>?

    /// Removes the record (a failure is only logged).
    func deleteRecord()

    /// Logs why the loaded record cannot be used and removes it.
    func discardRecord(reason: OSSResumableError)

    /// Prepares a ``OSSTransferStep/transferParts(_:)`` action (e.g. opens the file) and returns what moves one
    /// of its parts. A throw fails the transfer.
    func partMover(for action: Machine.Action) async throws -> PartMover

    /// What a failure that is not a cancellation means for the machine.
    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event>

    /// Of several parts' failures, the one with the highest rank decides (the first of equals).
    func rank(ofPartFailure error: any Error) -> Int

    /// Whether a part that failed with `error` may be tried again (up to the driver's `partAttempts`).
    func isRetryable(partFailure error: any Error) -> Bool

    /// Reports progress to the caller (never under a lock; the driver calls it in increasing order).
    var progress: OSSTransferProgressReporter { get }
}

extension OSSTransferEffects {
    /// Records are saved one by one, before the driver goes on.
    func backgroundWriter() -> OSSTransferRecordWriter<Machine.Record>? { nil }
}

/// What a failed step (or the worst failure of a batch of parts) means for the state machine
/// (``OSSTransferEffects/failureAnswer(for:)``).
enum OSSTransferFailureAnswer<Event: Sendable> {
    /// The transfer failed: the error becomes the driver's cause (when it has none) and `event` is fed.
    case failure(Event)
    /// Not a failure of the transfer but news the machine reacts to (the upload vanished, the object was
    /// replaced): `event` is fed and the error is not kept as the cause.
    case news(Event)
}

extension OSSTransferEffects {
    /// A part is tried again when its failure is ``OSSErrorDisposition/retryable`` (after the pipeline's own
    /// retries): the same disposition the request pipeline and the download stream ask.
    func isRetryable(partFailure error: any Error) -> Bool { OSSErrorDisposition(error) == .retryable }
}
