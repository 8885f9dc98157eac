import OSSResumable

/// What the driver does with one action of a state machine (``OSSTransferMachine/step(for:)``).
enum OSSTransferStep<Record: Sendable>: Sendable {
    /// A step the machine waits on (initiate, list, HEAD, complete...): the driver checks pause and cancel first,
    /// then ``OSSTransferEffects/answer(_:machine:)`` returns the event fed back. `restartsProgress`: the parts
    /// move from scratch from here on (a new upload, a download against a replaced object). Last in its list:
    /// what follows is the machine's answer.
    case ask(restartsProgress: Bool)
    /// A step with no answer (abort, delete or prepare a file, commit): ``OSSTransferEffects/perform(_:)``.
    case perform
    /// Save this record (``OSSTransferEffects/save(_:)``), atomically, before going on.
    case saveRecord(Record)
    /// Remove the record.
    case deleteRecord
    /// The loaded record is unusable or foreign: log `reason` and remove it.
    case discardRecord(OSSResumableError)
    /// Report progress: `step` new confirmed bytes, `total` confirmed so far, of `expected`.
    case reportProgress(step: Int64, total: Int64, expected: Int64)
    /// Send or fetch these parts, at most `threadNum` at once, each answered by its own event. Last in its list:
    /// what follows is what the machine answered to the parts.
    case transferParts([OSSPart])
    /// The machine is done.
    case stop(OSSTransferEnd)
}
