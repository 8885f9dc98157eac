#if canImport(AsyncHTTPClient)
import AsyncHTTPClient

extension OSSTransportErrorMapper {
    /// AsyncHTTPClient's errors: cancellation is cancellation, a closed connection is "no response".
    static func mapAsyncHTTPClient(_ error: any Error) -> OSSClientError? {
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
