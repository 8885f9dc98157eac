#if OSS_ASYNC_HTTP_CLIENT
import AsyncHTTPClient
import NIOCore

#if canImport(Glibc)
import Glibc
#endif

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
        if error == .remoteConnectionClosed {
            return OSSClientError(
                .networkingFailWithResponseCode0, "the server closed the connection", underlying: error)
        }
        return nil
    }
}
#endif
