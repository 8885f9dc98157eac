#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What a failure means for trying again: decided once, here, for every error, and asked by the retry policy,
/// the resumable transfers' part retries, the download stream's resumes and the batches.
///
/// ```swift
/// switch OSSErrorDisposition(error) {
/// case .retryable, .transient:  // running the call again can succeed
///     print("Try again later:", error.localizedDescription)
/// case .final:
///     print(error.localizedDescription, (error as? any LocalizedError)?.recoverySuggestion ?? "")
/// case .cancelled:
///     break
/// }
/// ```
///
/// The Errors article lists every client and known server code with its disposition.
public enum OSSErrorDisposition: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The attempt failed, not the request: the same request sent again, after a backoff, can succeed (a network
    /// error, a 5xx, throttling, a body damaged on the way, a clock the server corrects). The SDK sends it again
    /// itself: the request pipeline up to ``OSSClientConfiguration/Retry/maxRetryCount`` times for a replayable body,
    /// a resumable transfer each part up to its part attempts, a download stream from the byte it stopped at. An
    /// error of this kind that reaches the caller has used up those retries; a resumable transfer keeps everything
    /// it did, so running the call again resumes.
    case retryable
    /// The request is right but something outside it is not ready: the volume is full, the credentials expired or
    /// could not be fetched, another run holds the transfer, a local file is being written. Sending the request
    /// again at once would meet the same condition, so the SDK does not; but a resumable transfer keeps its record,
    /// its temporary file and its upload, and the same call resumes once the condition has cleared.
    case transient
    /// The answer is decided: the same request meets the same failure (a bad argument, a missing bucket or key,
    /// a denied permission, a wrong signature, integrity or a precondition that failed, an untrusted connection).
    /// Never retried; fix the input, the configuration or the permissions, or (for a changed object or file)
    /// start the transfer again.
    case final
    /// Not a failure: the app cancelled (`taskCancelled`, `CancellationError`) or paused (`taskPaused`) the work.
    /// Never retried, and never counted as a failure.
    case cancelled

    public var description: String { rawValue }

    /// The disposition of any error: ``OSSServerError`` by its code (the known-code table in
    /// `OSSServerErrorCodes.swift`), else by its status (5xx, 429 and 408 retryable, the rest final);
    /// ``OSSClientError`` by its code (`clientCodes` below); ``OSSBatchFailure`` by the code it recorded;
    /// `CancellationError` cancelled; a transport's own error (`URLError`, AsyncHTTPClient's) as the transport maps it;
    /// ``OSSPOSIXError`` and `POSIXError` by `errno`. Anything else is final.
    public init(_ error: any Error) {
        switch error {
        case let error as OSSServerError:
            self = Self.of(server: error.code, status: error.statusCode, message: error.message)
        case let error as OSSClientError:
            self = Self.clientCodes[error.code] ?? .final
        case let failure as OSSBatchFailure:
            if let code = failure.clientErrorCode {
                self = Self.clientCodes[code] ?? .final
            } else {
                self = Self.of(
                    server: failure.serverErrorCode ?? "", status: failure.statusCode ?? 0, message: failure.message)
            }
        case is CancellationError:
            self = .cancelled
        case let posix as OSSPOSIXError:
            self = Self.of(errno: posix.code)
        case let posix as POSIXError:
            self = Self.of(errno: posix.code.rawValue)
        case let wrapped as OSSNonRetryableFailure:
            self = Self(wrapped.error) == .cancelled ? .cancelled : .final
        default:
            if let mapped = OSSTransportErrorMapper.mapTransportError(error) {
                self = Self(mapped)
            } else {
                self = .final
            }
        }
    }

    /// Whether every other request of the client to the same bucket would meet this error too (the bucket is
    /// missing, access to it is denied, the credentials or the signature are refused, the request cannot be
    /// signed, the connection is not trusted, the local volume is full): a batch meeting one stops instead of
    /// failing each file the same way. The server codes are `bucketWideCodes` in `OSSServerErrorCodes.swift`.
    public static func affectsEveryRequest(_ error: any Error) -> Bool {
        switch error {
        case let error as OSSServerError:
            OSSServerError.bucketWideCodes.contains(error.code)
        case let error as OSSClientError:
            bucketWideClientCodes.contains(error.code)
                || (error.code == .batchStopped && error.underlying.map(affectsEveryRequest) == true)
        case let failure as OSSBatchFailure:
            failure.clientErrorCode.map { bucketWideClientCodes.contains($0) }
                ?? OSSServerError.bucketWideCodes.contains(failure.serverErrorCode ?? "")
        default:
            false
        }
    }

    /// The client codes every request of the client would meet: signing fails, the connection is refused as
    /// untrusted, the volume is full.
    static let bucketWideClientCodes: Set<OSSClientErrorCode> = [.signFailed, .connectionNotTrusted, .noSpaceLeft]

    /// Every client code's disposition. A table test asserts one row per ``OSSClientErrorCode/allKnown`` code, so a
    /// new code cannot be added without deciding it.
    static let clientCodes: [OSSClientErrorCode: OSSErrorDisposition] = [
        // Transport failures of one attempt (Go SDK v2 retries them too: connection reset or refused, timeouts, EOF).
        .networkError: .retryable,
        .networkingFailWithResponseCode0: .retryable,
        // The app stopped the work.
        .taskCancelled: .cancelled,
        .taskPaused: .cancelled,
        // Outside the request, cleared without changing it: credentials fetched again, space freed, the other run
        // finished, the file written to the end. A resumable download keeps its partial file for these.
        .signFailed: .transient,
        .fileCantWrite: .transient,
        .noSpaceLeft: .transient,
        .transferInUse: .transient,
        .fileChanged: .transient,
        // A stopped batch keeps its journal and its paused transfers: resumeBatch goes on from the file that failed.
        .batchStopped: .transient,
        // A shut-down transport sends nothing again, so the pipeline does not retry; a resumable transfer keeps its
        // partial file, record and upload, and the same call on a new client resumes.
        .clientShutDown: .transient,
        // Decided. invalidCRC is final although Go SDK v2 retries "crc is inconsistent": here a part whose CRC
        // disagrees is already re-sent by the upload machine, a whole-object mismatch is found after the object was
        // stored or delivered, and the pipeline never re-sends a request whose answer it has checked.
        .invalidArgument: .final,
        .nilUploadid: .final,
        // The object is what it is: only another client (with the key) or another request (accepting ciphertext).
        .encryptedObject: .final,
        .invalidCRC: .final,
        .fileCantRead: .final,
        .cannotResumeUpload: .final,
        // Only the app can give the bytes back (resumeBatch's sources); trying again without them cannot help.
        .batchSourceNeeded: .final,
        .cannotResumeDownload: .final,
        .objectChanged: .final,
        .connectionNotTrusted: .final,
        .exceptionCaught: .final,
        .notKnown: .final,
    ]

    /// A server error by its code (the table decides a known code whatever the status, e.g. `NotImplemented` 501 is
    /// final and `RequestTimeTooSkewed` 403 retryable), by its message for an `AccessDenied` that says the token
    /// expired, else by its status.
    static func of(server code: String, status: Int, message: String) -> Self {
        if code == "AccessDenied", OSSServerError.saysTokenExpired(message) { return .transient }
        if let known = OSSServerError.knownCodes[code] { return known.disposition }
        return status >= 500 || status == 429 || status == 408 ? .retryable : .final
    }

    /// A system error by `errno`: a dropped or refused connection or a timeout is retryable, a full volume transient,
    /// the rest final.
    static func of(errno code: Int32) -> Self {
        switch code {
        case ECONNRESET, ECONNREFUSED, ECONNABORTED, ETIMEDOUT, EPIPE, ENETDOWN, ENETUNREACH, EHOSTUNREACH, EAGAIN,
            EINTR:
            .retryable
        case ENOSPC, EDQUOT:
            .transient
        case ECANCELED:
            .cancelled
        default:
            .final
        }
    }
}
