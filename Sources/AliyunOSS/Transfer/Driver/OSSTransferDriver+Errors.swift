import OSSResumable

extension OSSTransferDriver {
    /// The error a run that did not finish throws: `taskCancelled` (with the cause), `taskPaused` with the
    /// resume token, the public form of the machine's error, or the error of the step that failed.
    ///
    /// - Parameters:
    ///   - operation: the SDK call, e.g. `resumableUpload`.
    ///   - noun: `upload` or `download`.
    ///   - kept: what a pause keeps, e.g. `the upload id and the record`.
    func error(
        operation: String, noun: String, kept: String, token: () -> OSSResumeToken?,
        map: (OSSResumableError) -> OSSClientError
    ) -> any Error {
        switch outcome {
        case .cancelled:
            OSSClientError(.taskCancelled, "the resumable \(noun) was cancelled", underlying: cause)
        case .paused:
            OSSClientError.paused("the resumable \(noun) was paused; \(kept) were kept", token: token())
        case .failed(let error):
            map(error)
        case .operationFailed, .finished, nil:
            cause ?? OSSClientError(.exceptionCaught, "\(operation) stopped without a result")
        }
    }
}

extension Error {
    /// Whether the error says the transfer was cancelled or paused (Task cancellation, `taskCancelled`,
    /// `taskPaused`) rather than that a step failed.
    var isTransferCancellation: Bool {
        OSSErrorDisposition(self) == .cancelled
    }
}
