import Foundation

/// Why a resumable transfer could not start, resume or finish, as decided by the pure resumable layer.
///
/// The SDK maps these to `OSSClientErrorCode` (for example ``fileChanged(_:)`` becomes `cannotResumeUpload`,
/// ``crcMismatch(expected:actual:)`` becomes `invalidCRC`, ``recordLocked(path:)`` becomes `transferInUse`).
/// Record decoding failures (``recordCorrupt(_:)``, ``recordWrongMagic``, ``recordUnsupportedVersion(_:)``,
/// ``recordChecksumMismatch``, ``recordForeign(_:)``) never reach the user of a resumable upload: the engines
/// log them and start fresh.
package enum OSSResumableError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A caller-supplied value is out of range (part size, range, part count...).
    case invalidArgument(String)
    /// The record bytes are not a record at all: not JSON, truncated, missing or ill-typed fields, or values that
    /// make no sense (negative sizes, part numbers out of range).
    case recordCorrupt(String)
    /// The bytes are JSON but not one of our records (the magic value is missing or different).
    case recordWrongMagic
    /// The record was written by a format version this code does not read.
    case recordUnsupportedVersion(Int)
    /// The payload does not match its SHA-256: the record was torn or edited.
    case recordChecksumMismatch
    /// A valid record that belongs to something else: another kind of transfer, or another bucket/key/file/part size.
    case recordForeign(String)
    /// Another process (or another request in this process) holds the record's lock: the transfer is in use.
    case recordLocked(path: String)
    /// The record holds `path` relative to a base directory (see ``OSSBaseDirectory``), but it was read without
    /// one: it belongs to a transfer started with a base directory and can only be resumed with one.
    case recordNeedsBaseDirectory(path: String)
    /// The local file changed since the record was written; the listed changes say how.
    case fileChanged([OSSFileIdentity.Change])
    /// The local file cannot be opened, inspected or read.
    case fileCantRead(path: String, errno: Int32)
    /// A file (record, temporary file, lock) cannot be written, synced or renamed.
    case fileCantWrite(path: String, errno: Int32)
    /// The CRC-64 combined from the parts differs from the one the server reports for the whole object.
    case crcMismatch(expected: UInt64, actual: UInt64)
    /// A part's CRC-64 computed locally differs from the one the server reported for that part, on every attempt.
    case partCRCMismatch(partNumber: Int, expected: UInt64, actual: UInt64)
    /// The remote object changed (ETag, size or Last-Modified) and the policy says to fail.
    case objectChanged(String)
    /// The temporary download file is missing or does not have the expected size.
    case tempFileAltered(String)
    /// The multipart upload vanished on the server more often than the engine is willing to restart.
    case uploadNotFound(uploadId: String)
    /// An event arrived that the state machine cannot accept in its current state (a bug in the caller).
    case invalidState(String)

    package var description: String {
        switch self {
        case .invalidArgument(let message): "invalid argument: \(message)"
        case .recordCorrupt(let message): "record corrupt: \(message)"
        case .recordWrongMagic: "record corrupt: not a resumable-transfer record (wrong magic)"
        case .recordUnsupportedVersion(let version): "record version \(version) is not supported"
        case .recordChecksumMismatch: "record checksum mismatch (torn or edited record)"
        case .recordForeign(let message): "record belongs to another transfer: \(message)"
        case .recordLocked(let path): "the transfer is in use: its lock \(path) is held by another process or request"
        case .recordNeedsBaseDirectory(let path):
            "the record holds \(path) relative to a base directory, but none was given (set baseDirectoryURL)"
        case .fileChanged(let changes):
            "the local file changed since the record was written: "
                + changes.map(\.description).joined(separator: ", ")
        case .fileCantRead(let path, let code): "cannot read \(path) (errno \(code): \(String(cString: strerror(code))))"
        case .fileCantWrite(let path, let code): "cannot write \(path) (errno \(code): \(String(cString: strerror(code))))"
        case .crcMismatch(let expected, let actual):
            "CRC-64 mismatch: expected \(expected), server reported \(actual)"
        case .partCRCMismatch(let number, let expected, let actual):
            "part \(number): CRC-64 mismatch: expected \(expected), server reported \(actual)"
        case .objectChanged(let message): "the object changed: \(message)"
        case .tempFileAltered(let message): "the temporary file was altered: \(message)"
        case .uploadNotFound(let uploadId): "the multipart upload \(uploadId) no longer exists"
        case .invalidState(let message): "invalid state: \(message)"
        }
    }

    /// Whether this is a problem with a stored record (as opposed to the transfer itself). Engines treat such
    /// records as absent, log a warning and start fresh.
    package var isRecordProblem: Bool {
        switch self {
        case .recordCorrupt, .recordWrongMagic, .recordUnsupportedVersion, .recordChecksumMismatch, .recordForeign:
            true
        default:
            false
        }
    }
}

extension OSSResumableError: LocalizedError {
    /// The ``description``, so that `localizedDescription` says what happened.
    package var errorDescription: String? { description }
}

/// Why a resumable transfer stopped without its result (``OSSUploadStateMachine/Failure``,
/// ``OSSDownloadStateMachine/Failure``).
package enum OSSTransferFailure: Sendable, Hashable {
    /// Cancelled by the user: throw `taskCancelled`.
    case cancelled
    /// Paused by the user: everything needed to resume was kept (the upload id, the temporary file, the
    /// record); throw `taskPaused`.
    case paused
    /// A decision of the state machine: throw the mapped error.
    case error(OSSResumableError)
    /// A step failed: rethrow the error that step produced.
    case operationFailed
}
