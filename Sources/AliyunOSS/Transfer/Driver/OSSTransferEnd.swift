import OSSResumable

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
