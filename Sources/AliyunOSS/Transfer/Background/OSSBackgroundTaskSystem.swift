/// The system's side of background transfers, behind one small protocol: the real background `URLSession` on
/// Apple platforms (``OSSURLSessionBackgroundTaskSystem``), and a simulated transfer daemon in a separate process
/// (``OSSSimulatedTaskSystem`` with ``OSSSimulatedTransferDaemon``), which makes the whole mode testable on
/// Linux against the local server.
///
/// The contract, as the system keeps it:
/// - ``submit(_:)`` returns once the system holds the task (it survives this process);
/// - the task is performed whether or not a process of the app runs;
/// - its ``OSSBackgroundTaskEvent`` is delivered to a process that attaches with the same
///   ``sessionIdentifier``, including events of tasks that ended while none was attached;
/// - a task the system gave up (force-quit, a dead daemon) ends with the error `cancelled`, so it can be
///   submitted again.
public protocol OSSBackgroundTaskSystem: Sendable {
    /// The session identifier (URLSession's background configuration identifier).
    var sessionIdentifier: String { get }

    /// Hands `task` to the system. Returns when the system holds it.
    func submit(_ task: OSSBackgroundTask) async throws

    /// The descriptions of the tasks the system still holds (queued or running).
    func pendingTaskDescriptions() async throws -> [String]

    /// The events not acknowledged yet, oldest first.
    func deliveredEvents() async throws -> [OSSBackgroundTaskEvent]

    /// Forgets `events` once their outcome is recorded durably (a download's file must be moved away first).
    func acknowledge(_ events: [OSSBackgroundTaskEvent]) async throws

    /// Cancels the tasks with these descriptions that the system still holds (a task already running may still
    /// end and report; such events are dropped as unknown once their transfer is gone).
    func cancelTasks(describedAs descriptions: Set<String>) async throws

    /// Returns once the system delivered the events it holds for this attach (URLSession: after
    /// `urlSessionDidFinishEvents(forBackgroundURLSession:)`). The default returns at once.
    func eventsDelivered() async
}

extension OSSBackgroundTaskSystem {
    public func eventsDelivered() async {}
}
