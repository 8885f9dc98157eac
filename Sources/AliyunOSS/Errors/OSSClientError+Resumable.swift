import OSSResumable

extension OSSClientError {
    /// The public form of an error the pure resumable layer raised in an upload or a download: the one map from
    /// ``OSSResumableError`` to ``OSSClientError``, used by the transfers, the transfer manager and the background
    /// service.
    ///
    /// A file failure keeps its `errno` (``posixErrorCode``, and its text in the message); a record that cannot be
    /// used is `cannotResumeUpload` or `cannotResumeDownload` by `transfer`.
    init(_ error: OSSResumableError, in transfer: OSSTransferKind) {
        let cannotResume: OSSClientErrorCode = transfer == .upload ? .cannotResumeUpload : .cannotResumeDownload
        switch error {
        case .invalidArgument(let message):
            self.init(.invalidArgument, message, underlying: error)
        case .recordLocked(let path):
            self = .transferInUse(lockPath: path, underlying: error)
        case .fileCantRead(let path, let code):
            self = .file(writing: false, "cannot read \(path)", errno: code)
        case .fileCantWrite(let path, let code):
            self = .file(writing: true, "cannot write \(path)", errno: code)
        case .crcMismatch(let expected, let actual):
            // The machines name the sides differently: the upload expects its own CRC, the download the server's.
            let message =
                transfer == .upload
                ? "CRC-64 mismatch for the uploaded object: the parts combine to \(expected), the server reports \(actual)"
                : "CRC-64 mismatch for the downloaded object: the server reports \(expected), the parts combine to \(actual)"
            self.init(.invalidCRC, message, underlying: error)
        case .partCRCMismatch:
            self.init(.invalidCRC, error.description, underlying: error)
        case .objectChanged(let message):
            self.init(.objectChanged, "the object changed: \(message)", underlying: error)
        case .fileChanged:
            self.init(
                .cannotResumeUpload,
                "\(error.description); the stale upload was aborted and its record removed, so the next call starts clean",
                underlying: error)
        case .uploadNotFound:
            self.init(.cannotResumeUpload, error.description, underlying: error)
        case .recordCorrupt, .recordWrongMagic, .recordUnsupportedVersion, .recordChecksumMismatch, .recordForeign,
            .recordNeedsBaseDirectory, .tempFileAltered:
            self.init(cannotResume, error.description, underlying: error)
        case .invalidState:
            self.init(.exceptionCaught, error.description, underlying: error)
        }
    }
}
