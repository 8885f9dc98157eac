import OSSResumable

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
