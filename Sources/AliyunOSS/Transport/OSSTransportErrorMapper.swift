import AsyncHTTPClient
import _NIOFileSystem

/// Maps transport-level failures to the public error types.
enum OSSTransportErrorMapper {
    static func map(_ error: any Error) -> any Error {
        switch error {
        case is OSSClientError, is OSSServerError, is OSSNonRetryableFailure:
            return error
        case is CancellationError:
            return OSSClientError.cancelled(error)
        case let error as HTTPClientError where error == .cancelled:
            return OSSClientError.cancelled(error)
        case let error as FileSystemError:
            return OSSClientError(.fileCantRead, "cannot read the request body file", underlying: error)
        case let error as HTTPClientError where error == .remoteConnectionClosed:
            return OSSClientError(
                .networkingFailWithResponseCode0, "the server closed the connection", underlying: error)
        default:
            if Task.isCancelled { return OSSClientError.cancelled(error) }
            return OSSClientError(.networkError, "network failure: \(error)", underlying: error)
        }
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
