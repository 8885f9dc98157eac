#if OSS_ASYNC_HTTP_CLIENT
import AsyncHTTPClient
import _NIOFileSystem

extension OSSTransportErrorMapper {
    /// AsyncHTTPClient's errors (and NIO's file errors, from file bodies it streams): cancellation is cancellation, a closed connection is "no response".
    static func mapAsyncHTTPClient(_ error: any Error) -> OSSClientError? {
        if let error = error as? FileSystemError {
            return OSSClientError(.fileCantRead, "cannot read the request body file", underlying: error)
        }
        guard let error = error as? HTTPClientError else { return nil }
        if error == .cancelled { return OSSClientError.cancelled(error) }
        if error == .remoteConnectionClosed {
            return OSSClientError(
                .networkingFailWithResponseCode0, "the server closed the connection", underlying: error)
        }
        return nil
    }
}
#endif
