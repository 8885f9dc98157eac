/// Maps transport-level failures to the public error types. Each transport adds its own cases
/// (`AsyncHTTPClientTransport+Errors.swift`, `URLSession/OSSURLSessionErrorMapper.swift`) through `mapTransportError`.
enum OSSTransportErrorMapper {
    static func map(_ error: any Error) -> any Error {
        if error is OSSNonRetryableFailure { return error }
        return OSSClientError.passing(error) { error in
            if let mapped = mapTransportError(error) { return mapped }
            if Task.isCancelled { return OSSClientError.cancelled(error) }
            return OSSClientError(.networkError, "network failure: \(error)", underlying: error)
        }
    }

    /// The transports' own error types (`URLError`, AsyncHTTPClient's and NIO's), or `nil` for any other error.
    static func mapTransportError(_ error: any Error) -> OSSClientError? {
        #if OSS_ASYNC_HTTP_CLIENT
        if let mapped = mapAsyncHTTPClient(error) { return mapped }
        #endif
        return mapURLSession(error)
    }

    /// A failure opening, writing or closing a destination file.
    static func mapFileWrite(_ error: any Error, path: String) -> any Error {
        if error is OSSNonRetryableFailure { return error }
        return OSSClientError.passing(error) { OSSClientError(.fileCantWrite, "cannot write \(path)", underlying: $0) }
    }
}
