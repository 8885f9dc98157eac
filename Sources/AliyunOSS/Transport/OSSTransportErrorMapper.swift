/// Maps transport-level failures to the public error types. Each transport adds its own cases
/// (`AsyncHTTPClientTransport+Errors.swift`, `URLSession/OSSURLSessionErrorMapper.swift`) through `mapSpecific`.
enum OSSTransportErrorMapper {
    static func map(_ error: any Error) -> any Error {
        switch error {
        case is OSSClientError, is OSSServerError, is OSSNonRetryableFailure:
            return error
        case is CancellationError:
            return OSSClientError.cancelled(error)
        default:
            if let mapped = mapSpecific(error) { return mapped }
            if Task.isCancelled { return OSSClientError.cancelled(error) }
            return OSSClientError(.networkError, "network failure: \(error)", underlying: error)
        }
    }

    /// The transports' own error types.
    private static func mapSpecific(_ error: any Error) -> OSSClientError? {
        #if OSS_ASYNC_HTTP_CLIENT
        if let mapped = mapAsyncHTTPClient(error) { return mapped }
        #endif
        return mapURLSession(error)
    }

    /// A failure opening, writing or closing a destination file.
    static func mapFileWrite(_ error: any Error, path: String) -> any Error {
        switch error {
        case is OSSClientError, is OSSServerError, is OSSNonRetryableFailure: return error
        case is CancellationError: return OSSClientError.cancelled(error)
        default: return OSSClientError(.fileCantWrite, "cannot write \(path)", underlying: error)
        }
    }
}
