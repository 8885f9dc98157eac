/// The kind of a client-side failure. The names mirror the iOS SDK's `OSSClientErrorCode`.
///
/// A struct with static members rather than an enum, so new codes can be added without breaking
/// exhaustive `switch` statements in user code. Compare with `==` or match with `case .invalidCRC`.
public struct OSSClientErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The raw name of the code, e.g. `"InvalidCRC"`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The server closed the connection or answered without an HTTP status.
    public static let networkingFailWithResponseCode0 = Self(rawValue: "NetworkingFailWithResponseCode0")
    /// The request could not be signed (missing credentials or region, a failing custom signer).
    public static let signFailed = Self(rawValue: "SignFailed")
    /// A local file could not be written.
    public static let fileCantWrite = Self(rawValue: "FileCantWrite")
    /// An argument is missing or out of range.
    public static let invalidArgument = Self(rawValue: "InvalidArgument")
    /// A multipart operation was given no upload id.
    public static let nilUploadid = Self(rawValue: "NilUploadid")
    /// The task was cancelled.
    public static let taskCancelled = Self(rawValue: "TaskCancelled")
    /// A transport failure: connection refused or reset, timeout, DNS failure.
    public static let networkError = Self(rawValue: "NetworkError")
    /// The CRC-64 computed locally does not match the one the server reports.
    public static let invalidCRC = Self(rawValue: "InvalidCRC")
    /// A resumable upload cannot continue from its record.
    public static let cannotResumeUpload = Self(rawValue: "CannotResumeUpload")
    /// An unexpected error was caught (for example a malformed response).
    public static let exceptionCaught = Self(rawValue: "ExceptionCaught")
    /// Anything else.
    public static let notKnown = Self(rawValue: "NotKnown")
    /// A local file could not be read.
    public static let fileCantRead = Self(rawValue: "FileCantRead")
    /// The volume a file is written to is full (`ENOSPC`, or the user's quota: `EDQUOT`). Nothing is lost: a resumable
    /// transfer keeps its temporary file and its last good record, so the same call resumes once space is freed.
    /// ``OSSClientError/posixErrorCode`` has the `errno`.
    public static let noSpaceLeft = Self(rawValue: "NoSpaceLeft")
    /// The system refused the connection for its security: App Transport Security (a plain `http://` endpoint the
    /// app's Info.plist does not allow) or a TLS trust failure (an untrusted, expired or mismatched certificate).
    /// Never retried: trying again cannot change the answer. Fix the endpoint, the certificate or the ATS settings.
    public static let connectionNotTrusted = Self(rawValue: "ConnectionNotTrusted")

    /// Every code this SDK throws, for tables that must cover them all (for example an exit-status map).
    public static let allKnown: [Self] = [
        .networkingFailWithResponseCode0, .signFailed, .fileCantWrite, .invalidArgument, .nilUploadid, .taskCancelled,
        .networkError, .invalidCRC, .cannotResumeUpload, .exceptionCaught, .notKnown, .fileCantRead, .taskPaused,
        .objectChanged, .cannotResumeDownload, .transferInUse, .connectionNotTrusted, .noSpaceLeft, .batchStopped,
        .fileChanged,
    ]
}
