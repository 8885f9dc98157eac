/// One file, object or directory of a batch and what became of it.
public struct OSSBatchItem: Sendable, Hashable, Codable {
    /// The object key (``OSSDirectoryTransferRequest/prefix`` + relative path); for a local name that is not
    /// valid UTF-8, the prefix + the name with its invalid bytes replaced (such a name has no key).
    public var key: String
    /// The path relative to the local directory, `/`-separated (for a refused key: the key minus the prefix, as
    /// the server sent it). In a list upload: the file's absolute path, `""` for `Data` or a stream.
    public var relativePath: String
    public var outcome: OSSBatchItemOutcome
    /// The item's size in bytes (of the file or object; 0 for deletions and directories).
    public var bytes: Int64

    public init(key: String, relativePath: String, outcome: OSSBatchItemOutcome, bytes: Int64) {
        self.key = key
        self.relativePath = relativePath
        self.outcome = outcome
        self.bytes = bytes
    }
}

/// What happened to one item of a batch (or, in a dry run, what would).
public enum OSSBatchItemOutcome: Sendable, Hashable, Codable {
    /// The file was sent.
    case uploaded
    /// The object was written to its file.
    case downloaded
    /// A sync found the destination equal and moved nothing.
    case unchanged
    /// ``OSSDirectoryTransferOptions/deleteExtras`` removed it (an object for an upload, a file for a download).
    case deleted
    /// A download created the directory of a directory marker.
    case createdDirectory
    /// It could not be transferred: why, typed.
    case failed(OSSBatchFailure)
    /// It was left alone by rule (an unsafe key, a link not followed, a loop...).
    case refused(OSSBatchRefusal)
    /// Dry run: would be uploaded.
    case wouldUpload
    /// Dry run: would be downloaded.
    case wouldDownload
    /// Dry run: would be deleted.
    case wouldDelete
    /// Dry run: the directory of a marker would be created.
    case wouldCreateDirectory

    /// Whether this is a failure.
    public var isFailure: Bool {
        if case .failed = self { return true }
        return false
    }
}

/// Why a batch left an item alone. None of these is retried: the same item is refused again.
public enum OSSBatchRefusal: String, Sendable, Hashable, Codable, CustomStringConvertible {
    /// A key whose path would leave the local directory: a `..` component, or an absolute path (a key that
    /// continues the prefix with `/`).
    case escapesDirectory
    /// A key with an empty component (`a//b`) or a `.` component: no file can be named after it faithfully.
    case invalidPathComponent
    /// A key or name with a character a file name cannot hold (NUL), or a component longer than 255 bytes.
    case invalidFileName
    /// A local name that is not valid UTF-8: it has no object key.
    case nameNotUTF8
    /// A key longer than OSS allows (1,023 bytes).
    case keyTooLong
    /// A symbolic link, not followed (``OSSSymbolicLinkPolicy/skip``).
    case symbolicLinkSkipped
    /// A download whose path runs through a symbolic link inside the local directory, which could lead it
    /// elsewhere (``OSSSymbolicLinkPolicy/skip``).
    case symbolicLinkInPath
    /// A followed link back into a directory being walked (a loop).
    case symbolicLinkLoop
    /// A FIFO, socket or device: not a regular file.
    case unsupportedFileType

    public var description: String {
        switch self {
        case .escapesDirectory: "the key would lead outside the local directory"
        case .invalidPathComponent: "the key has an empty or '.' path component"
        case .invalidFileName: "the name cannot be a file name (NUL, or a component over 255 bytes)"
        case .nameNotUTF8: "the local name is not valid UTF-8"
        case .keyTooLong: "the key would be longer than 1023 bytes"
        case .symbolicLinkSkipped: "a symbolic link (not followed)"
        case .symbolicLinkInPath: "the path runs through a symbolic link"
        case .symbolicLinkLoop: "a symbolic link loop"
        case .unsupportedFileType: "not a regular file or directory"
        }
    }
}

/// Why one item of a batch failed: the ``OSSClientError`` or ``OSSServerError`` it met, in a form that can be
/// compared and kept in the batch's journal.
public struct OSSBatchFailure: Error, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The client error's code (`fileCantRead`, `invalidCRC`, ``OSSClientErrorCode/fileChanged`` ...), when the
    /// failure was on this side.
    public var clientErrorCode: OSSClientErrorCode? {
        clientCode.map(OSSClientErrorCode.init(rawValue:))
    }
    /// The server's error code (`AccessDenied` ...), when the server refused.
    public var serverErrorCode: String?
    /// The server's HTTP status, when the server refused.
    public var statusCode: Int?
    /// The error's message.
    public var message: String
    /// The `errno` of a local file failure.
    public var posixErrorCode: Int32?

    private var clientCode: String?

    public init(_ error: any Error) {
        switch error {
        case let error as OSSClientError:
            clientCode = error.code.rawValue
            message = error.message
            posixErrorCode = error.posixErrorCode ?? (error.underlying as? OSSClientError)?.posixErrorCode
        case let error as OSSServerError:
            serverErrorCode = error.code
            statusCode = error.statusCode
            message = error.message
        case let error as OSSBatchFailure:
            self = error
        default:
            clientCode = OSSClientErrorCode.notKnown.rawValue
            message = "\(error)"
        }
    }

    init(_ code: OSSClientErrorCode, _ message: String, posixErrorCode: Int32? = nil) {
        clientCode = code.rawValue
        self.message = message
        self.posixErrorCode = posixErrorCode
    }

    public var description: String {
        if let serverErrorCode {
            return "\(serverErrorCode.isEmpty ? "HTTP \(statusCode ?? 0)" : serverErrorCode): \(message)"
        }
        return "\(clientCode ?? "?"): \(message)"
    }
}

extension OSSBatchFailure {
    /// Whether this failure ends the whole batch at once, whatever its ``OSSBatchFailurePolicy``: one that every
    /// other file would meet too, as ``OSSErrorDisposition/affectsEveryRequest(_:)`` decides (the server refused the
    /// bucket or the credentials: `NoSuchBucket`, `AccessDenied`, `InvalidAccessKeyId`, `SignatureDoesNotMatch`, an
    /// expired token; signing failed; the volume is full). The batch stops as
    /// ``OSSBatchFailurePolicy/stopOnFirstFailure`` stops it: its journal is kept, so resuming it once the cause
    /// is fixed goes on.
    public var endsBatch: Bool { OSSErrorDisposition.affectsEveryRequest(self) }

    /// What to do about a failure that ends a batch (``endsBatch``) on `bucket`.
    public func remedy(bucket: String) -> String {
        switch serverErrorCode {
        case "NoSuchBucket":
            "the bucket \(bucket) does not exist at this endpoint: check its name and the endpoint's region, or create it"
        case "AccessDenied":
            "these credentials may not do this on the bucket \(bucket): check the RAM or bucket policy"
        case "InvalidAccessKeyId":
            "the service does not know this AccessKey id: check the id the credentials come from"
        case "SignatureDoesNotMatch":
            "the AccessKey secret does not match its id (or the signing region is wrong): check the secret and the region"
        default:
            "fix the cause, then resume the batch"
        }
    }
}
