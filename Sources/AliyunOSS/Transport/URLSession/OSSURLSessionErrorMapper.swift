import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension OSSTransportErrorMapper {
    /// URLSession's errors, mapped to the same codes as AsyncHTTPClient's: timeouts and lost connections are
    /// retryable network errors, cancellation is cancellation, and being offline says so. App Transport Security
    /// and TLS trust refusals are ``OSSClientErrorCode/connectionNotTrusted``, which is never retried.
    static func mapURLSession(_ error: any Error) -> OSSClientError? {
        guard let urlError = error as? URLError else { return nil }
        switch urlError.code {
        case .cancelled:
            return OSSClientError.cancelled(urlError)
        case .notConnectedToInternet, .dataNotAllowed, .internationalRoamingOff:
            return OSSClientError(
                .networkError, "the device is offline or not allowed to use this network (\(urlError.code.rawValue))",
                underlying: urlError)
        case .networkConnectionLost:
            return OSSClientError(
                .networkingFailWithResponseCode0, "the connection was lost before a response arrived",
                underlying: urlError)
        case .timedOut:
            return OSSClientError(.networkError, "the request timed out", underlying: urlError)
        case .cannotFindHost, .cannotConnectToHost, .dnsLookupFailed:
            return OSSClientError(.networkError, "cannot connect to the host: \(urlError.localizedDescription)", underlying: urlError)
        case .appTransportSecurityRequiresSecureConnection:
            return OSSClientError(
                .connectionNotTrusted,
                "App Transport Security refused a plain HTTP connection: use an https endpoint, or allow this host in "
                    + "the app's NSAppTransportSecurity settings", underlying: urlError)
        case .secureConnectionFailed, .serverCertificateHasBadDate, .serverCertificateUntrusted,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected,
            .clientCertificateRequired:
            return OSSClientError(
                .connectionNotTrusted, "the TLS connection was refused: \(urlError.localizedDescription)",
                underlying: urlError)
        case .fileDoesNotExist, .noPermissionsToReadFile:
            return OSSClientError(.fileCantRead, "cannot read the request body file", underlying: urlError)
        case .badServerResponse, .zeroByteResource, .cannotParseResponse:
            return OSSClientError(
                .networkingFailWithResponseCode0, "the server sent no valid HTTP response", underlying: urlError)
        default:
            return OSSClientError(.networkError, "network failure: \(urlError.localizedDescription)", underlying: urlError)
        }
    }
}
