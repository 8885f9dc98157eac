#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a resumable download does when the object is replaced while it runs (or between two runs).
public enum OSSDownloadObjectChangedPolicy: String, Sendable, Hashable {
    /// Throw ``OSSClientErrorCode/objectChanged``; the partial download and its record are removed.
    case fail
    /// Discard the partial download and start over against the new object, once; a second change fails.
    case restartOnce
}

/// A resumable, parallel, ranged download of one object into a local file.
///
/// ```swift
/// var request = OSSResumableDownloadRequest(
///     bucketName: "b", objectKey: "big.bin", downloadToFileURL: URL(fileURLWithPath: "/tmp/big.bin"))
/// request.recordDirectoryPath = "/tmp/oss-records"
/// let result = try await client.resumableDownload(request)
/// ```
///
/// The bytes go to a temporary file beside the destination (`<destination>.osstmp-<id>`), each part written at
/// its offset as it streams in; at the end the file is synced and renamed over the destination atomically. With
/// ``recordDirectoryPath`` set, a checkpoint record lets a later call (even in another process) fetch only the
/// parts still missing.
///
/// Stopping: ``cancel()`` keeps the temporary file and the record when ``recordDirectoryPath`` is set and removes
/// the temporary file otherwise; ``pause()`` always keeps the temporary file (and the record), and its
/// `taskPaused` error carries an ``OSSResumeToken`` (``OSSClientError/resumeToken``) that
/// ``OSSClient/resumableDownload(_:resumingFrom:)`` accepts later.
///
/// `OSSResumableDownloadRequest` is a value type, but its stop state is shared by all copies: ``cancel()`` and
/// ``pause()`` stop every run started with this request or a copy of it, and a stopped request stays stopped
/// (the first of the two wins). Make a new request to resume.
public struct OSSResumableDownloadRequest: Sendable {
    /// The default part size: 8 MiB.
    public static let defaultPartSize: Int64 = 8 * 1024 * 1024
    /// The smallest part size: 100 KB (102,400 bytes). Smaller values are raised to it.
    public static let minimumPartSize: Int64 = 102_400
    /// The default number of parts in flight: 4.
    public static let defaultThreadNum = 4
    /// The largest accepted ``threadNum``.
    public static let maximumThreadNum = 64

    public var bucketName: String
    public var objectKey: String
    /// The destination file. It is replaced atomically when the download succeeds and left untouched otherwise.
    public var downloadToFileURL: URL
    /// The size of each ranged GET (the last part may be shorter). Default 8 MiB, at least 100 KB; grown
    /// automatically when the range would need more than 100,000 parts. A resumed download keeps the part size
    /// of its record.
    public var partSize: Int64
    /// How many parts are fetched at once (1...64). Default 4.
    public var threadNum: Int
    /// Where this transfer queues in the client's ``OSSClient/scheduler``, for its transfer slot and for each part:
    /// `.userInitiated` goes before queued batches. Default `.normal`. Not part of the record.
    public var priority: OSSTransferPriority = .normal
    /// Progress as parts are written (and recorded right after, in the background) or, with ``progressGranularity``
    /// `.bytes`, as their bytes arrive: (bytes in this step, total bytes received, total bytes expected). A
    /// resumed download starts with one report of the bytes already on disk. Never runs backwards (after a
    /// restart against a replaced object, nothing is reported until the new total passes the old one) and never
    /// exceeds the total. Called one report at a time; keep it quick.
    public var downloadProgress: OSSProgressHandler?
    /// When ``downloadProgress`` is called: per written part (default) or as bytes arrive.
    public var progressGranularity: OSSTransferProgressGranularity = .confirmedParts
    /// Called once, before the transfer goes on, when the checkpoint record in ``recordDirectoryPath`` is there but
    /// cannot be used (damaged, edited, or another transfer's): the record, what is wrong, and what happens next
    /// (the download starts over). See ``OSSRecordNotice``.
    public var recordNotice: (@Sendable (OSSRecordNotice) -> Void)?
    /// Where checkpoint records are kept; `nil` means the download is not resumable across calls (a cancel or
    /// a failure removes the temporary file).
    public var recordDirectoryPath: String?
    /// The directory the transfer's local paths are recorded relative to, so that the record and the resume token
    /// survive that directory moving — on iOS, the app's container, whose path changes across app updates and
    /// restores. With it, ``downloadToFileURL`` must lie inside it, the record (and a relative
    /// ``recordDirectoryPath``) is found from the new container after a move, and the temporary file, which lies
    /// beside the destination, travels with it: the parts already written are not fetched again. `nil` (the
    /// default) records absolute paths. See ``OSSBaseDirectory``.
    public var baseDirectoryURL: URL?
    /// The part of the object to download; `nil` is the whole object. `.from(a)` and `.closed(a, b)` are
    /// supported (an end past the object is truncated); `.suffix` is not.
    public var range: OSSObjectRange?
    /// Whether the CRC-64 combined from the parts is checked against the object's (whole-object downloads
    /// only); `nil` follows the client's `crcCheckEnabled`.
    public var crcFlag: Bool?
    /// What to do when the object changes mid-download or between runs. Default ``OSSDownloadObjectChangedPolicy/fail``.
    ///
    /// In a bucket with versioning the download is pinned to the version it began with: every GET asks for that
    /// version, and a resume asks for the recorded one, so a new version written to the key meanwhile does not
    /// change the download (the result's ``OSSResumableDownloadResult/newerVersionId`` says when the key moved on).
    /// Only that version's removal (or, with versioning suspended, the `null` version being replaced) is a change.
    public var objectChangedPolicy: OSSDownloadObjectChangedPolicy
    /// The version to download, in a bucket with versioning; `nil` (the default) is the key's current version,
    /// which the download then keeps to. A record of another version is not resumed.
    public var versionId: String?
    /// Whether an object encrypted on the client side is downloaded as it is stored (ciphertext). By default the
    /// download refuses it with ``OSSClientErrorCode/encryptedObject`` right after its HEAD, before any record,
    /// temporary file or GET; read such an object with `OSSEncryptionClient`.
    public var acceptsCiphertext = false
    /// Headers sent with every ranged GET (e.g. `x-oss-request-payer`). Not part of the record.
    public var headers: [String: String] = [:]
    /// `x-oss-traffic-limit` for every ranged GET, in bits per second (``OSSTrafficLimit/range``).
    public var trafficLimit: Int?

    let cancellation: OSSTransferCancellation

    public init(
        bucketName: String,
        objectKey: String,
        downloadToFileURL: URL,
        partSize: Int64 = OSSResumableDownloadRequest.defaultPartSize,
        threadNum: Int = OSSResumableDownloadRequest.defaultThreadNum,
        recordDirectoryPath: String? = nil,
        baseDirectoryURL: URL? = nil,
        range: OSSObjectRange? = nil,
        crcFlag: Bool? = nil,
        objectChangedPolicy: OSSDownloadObjectChangedPolicy = .fail,
        downloadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.downloadToFileURL = downloadToFileURL
        self.partSize = partSize
        self.threadNum = threadNum
        self.recordDirectoryPath = recordDirectoryPath
        self.baseDirectoryURL = baseDirectoryURL
        self.range = range
        self.crcFlag = crcFlag
        self.objectChangedPolicy = objectChangedPolicy
        self.downloadProgress = downloadProgress
        self.cancellation = OSSTransferCancellation()
    }

    /// Cancels the download promptly: in-flight GETs are cancelled, the temporary file and the record are kept
    /// (when ``recordDirectoryPath`` is set) for a later resume, and the call throws `taskCancelled`. Without a
    /// record directory the temporary file is removed. Does nothing after ``pause()``.
    public func cancel() {
        cancellation.cancel()
    }

    /// Pauses the download promptly, like ``cancel()``, but always keeps the temporary file — even without
    /// ``recordDirectoryPath`` — and the record. The call throws `taskPaused`, whose
    /// ``OSSClientError/resumeToken`` describes what was kept (`nil` if it was paused before the object was
    /// planned). Resume with a new request: the same call with the same record directory, or
    /// ``OSSClient/resumableDownload(_:resumingFrom:)`` with the token. Does nothing after ``cancel()``.
    public func pause() {
        cancellation.pause()
    }

    /// Whether ``cancel()`` was called on this request or a copy of it.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Whether ``pause()`` was called on this request or a copy of it.
    public var isPaused: Bool { cancellation.isPaused }
}

/// The result of ``OSSClient/resumableDownload(_:)``.
public struct OSSResumableDownloadResult: Sendable {
    /// The destination file, now holding the downloaded bytes.
    public var fileURL: URL
    /// The object's ETag (as the server sent it).
    public var eTag: String
    /// The object's `Last-Modified` header.
    public var lastModified: String?
    /// The object's size.
    public var objectSize: Int64
    /// The first byte of the object that was downloaded (0 for a whole-object download).
    public var rangeStart: Int64
    /// The number of bytes written to the file.
    public var totalBytes: Int64
    /// The CRC-64 of the bytes written, combined from the parts.
    public var crc64: UInt64
    /// The whole object's CRC-64 from HEAD, when the server sent one. Equal to ``crc64`` for a whole-object
    /// download (checked when CRC checking is on).
    public var objectCRC64: UInt64?
    /// The bytes that were already on disk from an earlier run and were not fetched again.
    public var resumedBytes: Int64
    /// The part size used (the record's when resuming).
    public var partSize: Int64
    /// The version downloaded, in a bucket with versioning (`x-oss-version-id`); `nil` in one without.
    public var versionId: String?
    /// When the download resumed on the version it began with although the key had a newer current version by
    /// then: that version's id. The file holds ``versionId``, not the key's current content.
    public var newerVersionId: String?
}
