extension Error {
    /// Whether the error says the transfer was cancelled or paused (Task cancellation, `taskCancelled`,
    /// `taskPaused`) rather than that a step failed.
    var isTransferCancellation: Bool {
        if self is CancellationError { return true }
        if let error = self as? OSSClientError, error.code == .taskCancelled || error.code == .taskPaused {
            return true
        }
        return false
    }
}
