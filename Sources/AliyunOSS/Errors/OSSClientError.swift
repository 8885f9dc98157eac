/// A failure on the client side: bad input, a transport error, a checksum mismatch, cancellation.
///
/// Together with ``OSSServerError`` this is the only error the public API throws. Its ``OSSErrorDisposition``
/// says whether it was retried, can be resumed later, is final or is a cancellation; as a `LocalizedError` its
/// `localizedDescription` is a sentence fit for an alert.
public struct OSSClientError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public var code: OSSClientErrorCode
    /// A human-readable explanation. Never contains secrets.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error)?

    public init(_ code: OSSClientErrorCode, _ message: String, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        if let underlying {
            return "OSSClientError(\(code.rawValue)): \(message) (underlying: \(underlying))"
        }
        return "OSSClientError(\(code.rawValue)): \(message)"
    }

    /// For a `taskPaused` error: the token of the state the pause kept, to store and give back to
    /// ``OSSClient/resumableUpload(_:resumingFrom:)`` / ``OSSClient/resumableDownload(_:resumingFrom:)`` or
    /// ``OSSTransferManager/restore(_:)``. `nil` for other errors, and when nothing could be kept yet (paused
    /// before the multipart upload was initiated or the object was planned).
    public var resumeToken: OSSResumeToken? {
        (underlying as? OSSTransferPause)?.token
    }
}

// MARK: Making one

extension OSSClientError {
    /// The one way a caught error leaves a layer of the SDK: an ``OSSClientError`` or ``OSSServerError`` passes
    /// through unchanged, a `CancellationError` becomes `taskCancelled`, and anything else becomes what `wrap`
    /// makes of it (`signFailed` for a credential provider's failure, `fileCantRead` for a failing body stream ...).
    static func passing(_ error: any Error, orWrapping wrap: (any Error) -> OSSClientError) -> any Error {
        if passesThrough(error) { return error }
        if error is CancellationError { return cancelled(error) }
        return wrap(error)
    }

    /// Whether `error` is already one of the two public errors, to be passed on unchanged.
    static func passesThrough(_ error: any Error) -> Bool {
        error is OSSClientError || error is OSSServerError
    }

    static func invalidArgument(_ message: String) -> Self { Self(.invalidArgument, message) }

    static func cancelled(_ underlying: (any Error)? = nil) -> Self {
        Self(.taskCancelled, "the task was cancelled", underlying: underlying)
    }

    /// The `taskPaused` error of a transfer, carrying `token`.
    static func paused(_ message: String, token: OSSResumeToken?) -> OSSClientError {
        OSSClientError(.taskPaused, message, underlying: OSSTransferPause(token: token))
    }

    /// The `transferInUse` error for the record whose lock file is `lockPath`.
    package static func transferInUse(lockPath: String, underlying: (any Error)? = nil) -> OSSClientError {
        let record = lockPath.hasSuffix(".lock") ? String(lockPath.dropLast(".lock".count)) : lockPath
        return OSSClientError(
            .transferInUse,
            "the transfer of record \(record) is in use by another process or request (its lock \(lockPath) is held); "
                + "try again once that run has finished or paused",
            underlying: underlying)
    }
}

/// The `underlying` error of a `taskPaused` error: what the pause kept.
struct OSSTransferPause: Error, Sendable, CustomStringConvertible {
    let token: OSSResumeToken?

    var description: String {
        guard let token else { return "paused before anything resumable existed" }
        return "paused with \(token.bytesDone) of \(token.totalBytes) bytes of oss://\(token.bucketName)/\(token.objectKey) kept"
    }
}
