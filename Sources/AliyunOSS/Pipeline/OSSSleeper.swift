/// Waits between retry attempts. Injectable so retry tests do not sleep.
protocol OSSSleeper: Sendable {
    /// Sleeps, throwing `CancellationError` if the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// Sleeps with `Task.sleep`; cancellation is never swallowed.
struct OSSTaskSleeper: OSSSleeper {
    func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}
