/// The system's report that a background task ended: delivered to the process that attaches with the task's
/// session identifier, also when the task ended while no process of the app was running.
public struct OSSBackgroundTaskEvent: Sendable, Hashable, Codable {
    /// Identifies the event for ``OSSBackgroundTaskSystem/acknowledge(_:)``.
    public var eventId: String
    /// The task's description.
    public var taskDescription: String
    /// The HTTP status; `nil` when the task ended without a response (see ``error``).
    public var status: Int?
    /// Response headers, names lower-cased.
    public var headers: [String: String]
    /// Why the task ended without a response (network failure, `cancelled` for a task the system cancelled,
    /// e.g. at a force-quit or when its daemon died).
    public var error: String?
    /// For a download task with a response: the file holding the body (the receiver moves it away).
    public var downloadedFilePath: String?

    public init(
        eventId: String, taskDescription: String, status: Int?, headers: [String: String], error: String?,
        downloadedFilePath: String? = nil
    ) {
        self.eventId = eventId
        self.taskDescription = taskDescription
        self.status = status
        self.headers = headers
        self.error = error
        self.downloadedFilePath = downloadedFilePath
    }

    /// `error` for a task cancelled by the system.
    public static let cancelled = "cancelled"
}
