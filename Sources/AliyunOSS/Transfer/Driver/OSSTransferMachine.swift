import OSSResumable

/// A pure state machine the ``OSSTransferDriver`` can run: it takes events and returns actions, and says how the
/// driver treats each action. ``OSSUploadStateMachine`` and ``OSSDownloadStateMachine`` conform.
protocol OSSTransferMachine: Sendable {
    associatedtype Action: Sendable
    associatedtype Event: Sendable
    associatedtype Record: Sendable

    /// Feeds one event and returns the actions to perform, in order.
    mutating func handle(_ event: Event) -> [Action]

    /// The bytes the whole transfer moves, once planned (for byte-level progress).
    var expectedBytes: Int64 { get }

    /// What the driver does with `action`.
    static func step(for action: Action) -> OSSTransferStep<Record>

    /// The user cancelled (the request's `cancel()` or Task cancellation).
    static var cancelledEvent: Event { get }

    /// The user paused (the request's `pause()`).
    static var pausedEvent: Event { get }
}

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

/// How a resumable transfer ended, as the driver saw its state machine end it.
enum OSSTransferEnd: Sendable {
    /// The object (upload) or the destination file (download) is complete; `crc64` is the checked CRC-64, if any.
    case finished(crc64: UInt64?)
    /// Cancelled by the user (the request's `cancel()` or Task cancellation).
    case cancelled
    /// Paused by the user: everything needed to resume was kept.
    case paused
    /// A decision of the state machine (file changed, CRC mismatch, object changed...).
    case failed(OSSResumableError)
    /// An effect failed: the driver's ``OSSTransferDriver/cause`` is the error to rethrow.
    case operationFailed
}

extension OSSTransferFailure {
    /// How the driver's run ends on this failure.
    var end: OSSTransferEnd {
        switch self {
        case .cancelled: .cancelled
        case .paused: .paused
        case .error(let error): .failed(error)
        case .operationFailed: .operationFailed
        }
    }
}
