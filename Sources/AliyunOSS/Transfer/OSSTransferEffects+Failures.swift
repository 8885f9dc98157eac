import OSSResumable

extension OSSTransferEffects {
    /// Failures worth another try (and worth keeping a partial download for): the network, and the server's
    /// 5xx and 429, after the client's own retries.
    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case let error as OSSClientError:
            error.code == .networkError || error.code == .networkingFailWithResponseCode0
        case let error as OSSServerError:
            error.statusCode >= 500 || error.statusCode == 429
        default:
            false
        }
    }

    func isRetryable(partFailure error: any Error) -> Bool { Self.isTransient(error) }
}
