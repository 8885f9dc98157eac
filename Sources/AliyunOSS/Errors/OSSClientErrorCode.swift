/// The kind of a client-side failure. The first twelve names mirror the iOS SDK's `OSSClientErrorCode`; the others
/// are this SDK's own.
///
/// A struct with static members rather than an enum, so new codes can be added without breaking exhaustive
/// `switch` statements in user code. Compare with `==` or match with `case .invalidCRC`.
///
/// Every code is declared here, and each has a disposition (``OSSErrorDisposition``): whether it is retried, kept
/// for a later run, final or a cancellation. The table is in ``OSSErrorDisposition``; the Errors article lists
/// every code with its disposition and what to do.
public struct OSSClientErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The raw name of the code, e.g. `"InvalidCRC"`.
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    // MARK: The iOS SDK's codes

    /// The server closed the connection or answered without an HTTP status.
    public static let networkingFailWithResponseCode0 = Self(rawValue: "NetworkingFailWithResponseCode0")
    /// The request could not be signed (missing credentials or region, a failing credential provider or custom
    /// signer).
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
    /// A resumable upload cannot continue from its record (the file changed since the record was written, or the
    /// multipart upload vanished too often): the stale upload was aborted and its record removed, so the next
    /// call starts clean.
    public static let cannotResumeUpload = Self(rawValue: "CannotResumeUpload")
    /// An unexpected error was caught (for example a malformed response).
    public static let exceptionCaught = Self(rawValue: "ExceptionCaught")
    /// Anything else.
    public static let notKnown = Self(rawValue: "NotKnown")
    /// A local file could not be read.
    public static let fileCantRead = Self(rawValue: "FileCantRead")

    // MARK: This SDK's codes

    /// The transfer was stopped by `pause()` (``OSSResumableUploadRequest/pause()``,
    /// ``OSSResumableDownloadRequest/pause()``, ``OSSTransferManager/pause(_:)``): unlike `taskCancelled`, the
    /// multipart upload, the temporary file and the record were all kept. The error's
    /// ``OSSClientError/resumeToken`` describes what was kept.
    public static let taskPaused = Self(rawValue: "TaskPaused")
    /// The object was replaced during a resumable download (a ranged GET answered 412 to `If-Match`), or
    /// since the record of an interrupted one was written, and the policy says to fail.
    public static let objectChanged = Self(rawValue: "ObjectChanged")
    /// A resumable download cannot continue from its record. (A record whose transfer is running elsewhere is
    /// ``transferInUse``.)
    public static let cannotResumeDownload = Self(rawValue: "CannotResumeDownload")
    /// The transfer is in use: another process, or another request in this process, is running it (it holds the
    /// lock of the transfer's checkpoint record). Thrown at once, without waiting, by
    /// ``OSSClient/resumableUpload(_:)``, ``OSSClient/resumableDownload(_:)`` and ``OSSTransferManager``'s
    /// ``OSSTransferManager/terminate(_:)`` and ``OSSTransferManager/restore(_:)``; the message names the record.
    /// Nothing was changed: try again once the other run has finished or paused (a paused or killed run holds no
    /// lock).
    public static let transferInUse = Self(rawValue: "TransferInUse")
    /// The system refused the connection for its security: App Transport Security (a plain `http://` endpoint the
    /// app's Info.plist does not allow) or a TLS trust failure (an untrusted, expired or mismatched certificate).
    /// Never retried: trying again cannot change the answer. Fix the endpoint, the certificate or the ATS settings.
    public static let connectionNotTrusted = Self(rawValue: "ConnectionNotTrusted")
    /// The volume a file is written to is full (`ENOSPC`, or the user's quota: `EDQUOT`). Nothing is lost: a resumable
    /// transfer keeps its temporary file and its last good record, so the same call resumes once space is freed.
    /// ``OSSClientError/posixErrorCode`` has the `errno`.
    public static let noSpaceLeft = Self(rawValue: "NoSpaceLeft")
    /// A batch with ``OSSBatchFailurePolicy/stopOnFirstFailure`` stopped because a file failed: the message names
    /// it and ``OSSClientError/underlying`` is its ``OSSBatchFailure``. Resumable transfers in flight were paused
    /// and the journal kept: ``OSSTransferManager/resumeBatch(_:sources:)`` retries the file and goes on.
    public static let batchStopped = Self(rawValue: "BatchStopped")
    /// A local file changed while it was read for an upload (its size or modification time, or for a multipart
    /// upload its identity, differs afterwards), again after one retry. Nothing torn was stored: the snapshot was
    /// checked before it was sent, and a multipart upload is never completed over a changed file.
    public static let fileChanged = Self(rawValue: "FileChanged")
    /// An item of a list batch whose bytes lived in memory (`Data` or a stream, ``OSSBatchUploadSource``) was not
    /// given back when the batch resumed in another process: the item is that failure in the report, the others
    /// went on. Resume the batch again with ``OSSTransferManager/resumeBatch(_:sources:)``'s `sources` giving it.
    public static let batchSourceNeeded = Self(rawValue: "BatchSourceNeeded")
    /// The client's transport was shut down (``OSSClient/shutdown()``): the request was not sent, and no later one
    /// will be. Create a new client.
    public static let clientShutDown = Self(rawValue: "ClientShutDown")
    /// The object is encrypted on the client side (its metadata carries the client-side-encryption envelope,
    /// `x-oss-meta-client-side-encryption-key`) and was about to be written to a file or stream as it is stored:
    /// ciphertext, where plaintext was meant. Nothing was written. Read it with `OSSEncryptionClient` (the
    /// `AliyunOSSEncryption` product; `oss cp --encryption-key`), or set `acceptsCiphertext` on the request to take
    /// the stored bytes.
    public static let encryptedObject = Self(rawValue: "EncryptedObject")

    /// Every code this SDK throws, for tables that must cover them all (for example an exit-status map). A test
    /// checks that every code declared above is listed here and has a disposition.
    public static let allKnown: [Self] = [
        .networkingFailWithResponseCode0, .signFailed, .fileCantWrite, .invalidArgument, .nilUploadid, .taskCancelled,
        .networkError, .invalidCRC, .cannotResumeUpload, .exceptionCaught, .notKnown, .fileCantRead, .taskPaused,
        .objectChanged, .cannotResumeDownload, .transferInUse, .connectionNotTrusted, .noSpaceLeft, .batchStopped,
        .fileChanged, .batchSourceNeeded, .clientShutDown, .encryptedObject,
    ]
}
