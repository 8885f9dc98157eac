#if OSS_ASYNC_HTTP_CLIENT
import AsyncHTTPClient
import NIOCore

#if canImport(Glibc)
import Glibc
#endif
#endif

/// Maps transport-level failures to the public error types. Each transport adds its own cases through
/// `mapTransportError`: AsyncHTTPClient's below, URLSession's in `URLSession/OSSURLSessionErrorMapper.swift`.
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

    /// What a transport answers to a request after its shutdown, unsent (both transports say the same).
    static func shutDown(underlying: (any Error)? = nil) -> OSSClientError {
        OSSClientError(
            .clientShutDown, "the HTTP transport is shut down: create a new client to send requests", underlying: underlying)
    }

    /// A failure opening, writing or closing a destination file.
    static func mapFileWrite(_ error: any Error, path: String) -> any Error {
        if error is OSSNonRetryableFailure { return error }
        return OSSClientError.passing(error) { OSSClientError(.fileCantWrite, "cannot write \(path)", underlying: $0) }
    }
}

#if OSS_ASYNC_HTTP_CLIENT
extension OSSTransportErrorMapper {
    /// AsyncHTTPClient's errors: cancellation is cancellation, a closed connection is "no response".
    static func mapAsyncHTTPClient(_ error: any Error) -> OSSClientError? {
        if let error = error as? IOError {
            // A socket error (a refused or reset connection): its errno's text, not NIO's description of where it
            // was read ("connection reset (error set): ...").
            let code = error.errnoCode
            return OSSClientError(
                .networkError, "network failure: \(String(cString: strerror(code))) (errno \(code))", underlying: error)
        }
        guard let error = error as? HTTPClientError else { return nil }
        if error == .cancelled { return OSSClientError.cancelled(error) }
        if error == .alreadyShutdown { return shutDown(underlying: error) }
        if error == .remoteConnectionClosed {
            return OSSClientError(
                .networkingFailWithResponseCode0, "the server closed the connection", underlying: error)
        }
        return nil
    }
}
#endif
