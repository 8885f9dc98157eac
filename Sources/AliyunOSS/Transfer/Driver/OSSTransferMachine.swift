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
