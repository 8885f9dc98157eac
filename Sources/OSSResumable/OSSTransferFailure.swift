/// Why a resumable transfer stopped without its result (``OSSUploadStateMachine/Failure``,
/// ``OSSDownloadStateMachine/Failure``).
package enum OSSTransferFailure: Sendable, Hashable {
    /// Cancelled by the user: throw `taskCancelled`.
    case cancelled
    /// Paused by the user: everything needed to resume was kept (the upload id, the temporary file, the
    /// record); throw `taskPaused`.
    case paused
    /// A decision of the state machine: throw the mapped error.
    case error(OSSResumableError)
    /// A step failed: rethrow the error that step produced.
    case operationFailed
}
