#if OSS_ASYNC_HTTP_CLIENT
import AsyncHTTPClient
import NIOCore
import _NIOFileSystem

#if canImport(Glibc)
import Glibc
#endif

extension OSSTransportErrorMapper {
    /// AsyncHTTPClient's errors (and NIO's file errors, from file bodies it streams): cancellation is cancellation, a closed connection is "no response".
    static func mapAsyncHTTPClient(_ error: any Error) -> OSSClientError? {
        if let error = error as? FileSystemError {
            return OSSClientError(.fileCantRead, "cannot read the request body file", underlying: error)
        }
        if let error = error as? IOError {
            // A socket error (a refused or reset connection): its errno's text, not NIO's description of where it
            // was read ("connection reset (error set): ...").
            let code = error.errnoCode
            return OSSClientError(
                .networkError, "network failure: \(String(cString: strerror(code))) (errno \(code))", underlying: error)
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
