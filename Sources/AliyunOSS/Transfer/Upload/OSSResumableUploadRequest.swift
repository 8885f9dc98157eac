#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A resumable multipart upload of one local file (the iOS SDK's `OSSResumableUploadRequest`).
///
/// ```swift
/// var request = OSSResumableUploadRequest(
///     bucketName: "b", objectKey: "big.bin", uploadingFileURL: URL(fileURLWithPath: "/data/big.bin"))
/// request.recordDirectoryPath = "/tmp/oss-records"
/// let result = try await client.resumableUpload(request)
/// ```
///
/// With ``recordDirectoryPath`` set, a checkpoint record (upload id, file identity, confirmed parts with their
/// CRC-64; never credentials) lets a later call — in this process or another — send only the parts the server
/// does not have yet. Without it, the upload is not resumable across calls.
///
/// Defaults: part size 1 MiB (at least 100 KB, else `invalidArgument`; grown automatically when the file needs
/// more than 10,000 parts),
/// 5 parts in flight, `deleteUploadIdOnCancelling = true`, CRC-64 checking as the client is configured, each part
/// read once (CRC-64 computed as it is sent; ``sendContentMD5`` adds a `Content-MD5` pass).
///
/// Stopping: ``cancel()`` follows ``deleteUploadIdOnCancelling`` (by default the multipart upload is aborted and
/// the record deleted); ``pause()`` always keeps the upload id and the record, and its `taskPaused` error carries
/// an ``OSSResumeToken`` (``OSSClientError/resumeToken``) that ``OSSClient/resumableUpload(_:resumingFrom:)``
/// accepts later, in this process or another.
///
/// ```swift
/// let request = OSSResumableUploadRequest(
///     bucketName: "b", objectKey: "big.bin", uploadingFileURL: URL(fileURLWithPath: "/data/big.bin"),
///     recordDirectoryPath: "/tmp/oss-records")
/// let run = Task { try await client.resumableUpload(request) }
/// request.pause()  // e.g. when the app goes to the background
/// do {
///     _ = try await run.value
/// } catch let error as OSSClientError where error.code == .taskPaused {
///     if let token = error.resumeToken {
///         let stored = try JSONEncoder().encode(token)  // keep it anywhere; later:
///         // try await client.resumableUpload(newRequest, resumingFrom: JSONDecoder().decode(OSSResumeToken.self, from: stored))
///     }
/// }
/// ```
///
/// `OSSResumableUploadRequest` is a value type, but its stop state is shared by all copies: ``cancel()`` and
/// ``pause()`` stop every run started with this request or a copy of it, and a stopped request stays stopped (the
/// first of the two wins). Make a new request (a copy made with `var copy = request` shares the state) to resume.
public struct OSSResumableUploadRequest: Sendable {
    /// The default part size: 1 MiB.
    public static let defaultPartSize: Int64 = 1024 * 1024
    /// The smallest part size OSS accepts (but for the last part): 100 KB (102,400 bytes). As in the iOS SDK, a
    /// smaller ``partSize`` for a file larger than this is refused with `invalidArgument`.
    public static let minimumPartSize: Int64 = 102_400
    /// The default number of parts in flight: 5.
    public static let defaultThreadNum = 5
    /// The largest accepted ``threadNum``.
    public static let maximumThreadNum = 64

    public var bucketName: String
    public var objectKey: String
    /// The local file to upload.
    public var uploadingFileURL: URL
    /// The size of each part (the last may be shorter). At least 100 KB (``minimumPartSize``) unless the whole file
    /// fits in one part (the iOS rule: a smaller value throws `invalidArgument`); doubled automatically while the
    /// file would need more than 10,000 parts. Part of the record's identity.
    public var partSize: Int64
    /// How many parts are sent at once (1...64); ignored (one at a time) when ``sequential``.
    public var threadNum: Int
    /// Where this transfer queues in the client's ``OSSClient/scheduler``, for its transfer slot and for each part:
    /// `.userInitiated` goes before queued batches. Default `.normal`. Not part of the record.
    public var priority: OSSTransferPriority = .normal
    /// A sequential upload, the iOS `sequentialMultipartUpload`: the upload is initiated with `?sequential`, its
    /// parts are sent one at a time in ascending order, and OSS gives the object the `Content-MD5` of its whole
    /// content. Part of the record's identity (a sequential upload never resumes a parallel one's upload id).
    public var sequential: Bool = false
    /// Progress: (bytes in this step, total bytes sent, total bytes expected), as parts are confirmed or, with
    /// ``progressGranularity`` `.bytes`, as their bytes go out. A resumed upload starts with one report of
    /// the bytes already on the server. Never runs backwards, never exceeds the file size.
    public var uploadProgress: OSSProgressHandler?
    /// When ``uploadProgress`` is called: per confirmed part (default) or as bytes are sent.
    public var progressGranularity: OSSTransferProgressGranularity = .confirmedParts
    /// Called once, before the transfer goes on, when the checkpoint record in ``recordDirectoryPath`` is there but
    /// cannot be used (damaged, edited, or another transfer's): the record, what is wrong, and what happens next
    /// (a multipart upload it still names is aborted; a new upload starts). See ``OSSRecordNotice``.
    public var recordNotice: (@Sendable (OSSRecordNotice) -> Void)?
    /// Where checkpoint records are kept; `nil` means nothing is persisted. With ``baseDirectoryURL``, a relative
    /// path (e.g. `"Library/Transfers"`) is taken from the base directory.
    public var recordDirectoryPath: String?
    /// The directory the transfer's local paths are recorded relative to, so that the record and the resume token
    /// survive that directory moving — on iOS, the app's container, whose path changes across app updates and
    /// restores (pass `URL.homeDirectory` / `NSHomeDirectory()` of the current launch).
    ///
    /// With it, ``uploadingFileURL`` must lie inside it; the record's name and contents hold the file's path
    /// relative to it (with bucket, key, part size and CRC mode naming the record, and size, modification time
    /// and sampled content — not the inode — identifying the file), so after a move the same request built from
    /// the new container finds the record and resumes: the parts the server confirmed are not sent again.
    /// `nil` (the default) records absolute paths. See ``OSSBaseDirectory``.
    public var baseDirectoryURL: URL?
    /// On ``cancel()``: `true` (default, as in the iOS SDK) aborts the multipart upload and deletes the record;
    /// `false` keeps both so the next call resumes. ``pause()`` ignores it and always keeps both. Without ``recordDirectoryPath`` it also decides whether a
    /// failed upload is aborted.
    public var deleteUploadIdOnCancelling: Bool
    /// Whether each part's CRC-64 and the object's combined CRC-64 are checked; `nil` follows the client's
    /// `crcCheckEnabled`. Part of the record's identity.
    public var crcFlag: Bool?
    /// Whether each part is also sent with `Content-MD5`, so the server itself refuses a part whose bytes differ
    /// from the ones hashed. Off by default: each part is then read once, its CRC-64 computed as it streams out
    /// and compared with the server's (a disagreement re-sends the part), which costs a fraction of the CPU.
    /// On, each part is read twice (MD5 + CRC-64 first, then sent). `Content-MD5` is always sent when CRC
    /// checking is off, so a part is never sent unchecked. Not part of the record's identity.
    public var sendContentMD5: Bool
    /// `Content-Type` of the object; when nil it is guessed from the local file's extension, then the object key's
    /// (``OSSMimeType``), else `application/octet-stream`.
    public var contentType: String?
    /// Object metadata and headers sent when the upload is initiated, read like the iOS `objectMeta`
    /// (``OSSPutObjectRequest/metadata``): `x-oss-meta-*` and bare names are user metadata; standard headers
    /// (`Content-Type`, `Cache-Control`, `x-oss-storage-class`, ...) are sent as themselves.
    public var completeMetaHeader: [String: String]
    /// Upload callback parameters (`callbackUrl`, `callbackBody`, ...), sent on Complete as `x-oss-callback`
    /// (Base64 JSON).
    public var callbackParam: [String: String]?
    /// Callback variables (`x:name` → value), sent on Complete as `x-oss-callback-var` (Base64 JSON).
    public var callbackVar: [String: String]?
    /// A typed upload callback, sent on Complete (takes precedence over ``callbackParam`` / ``callbackVar``). It is
    /// kept in the checkpoint record, so a resumed or transfer-manager upload still sends it. A failed callback
    /// throws ``OSSServerError`` `CallbackFailed` (the object exists).
    public var callback: OSSCallback?
    /// Headers sent with every UploadPart (e.g. `x-oss-request-payer`). Not part of the record.
    public var partHeaders: [String: String] = [:]
    /// `x-oss-traffic-limit` for every UploadPart, in bits per second (``OSSTrafficLimit/range``).
    public var trafficLimit: Int?

    let cancellation: OSSTransferCancellation

    public init(
        bucketName: String,
        objectKey: String,
        uploadingFileURL: URL,
        partSize: Int64 = OSSResumableUploadRequest.defaultPartSize,
        threadNum: Int = OSSResumableUploadRequest.defaultThreadNum,
        recordDirectoryPath: String? = nil,
        baseDirectoryURL: URL? = nil,
        deleteUploadIdOnCancelling: Bool = true,
        crcFlag: Bool? = nil,
        sendContentMD5: Bool = false,
        contentType: String? = nil,
        completeMetaHeader: [String: String] = [:],
        callbackParam: [String: String]? = nil,
        callbackVar: [String: String]? = nil,
        uploadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadingFileURL = uploadingFileURL
        self.partSize = partSize
        self.threadNum = threadNum
        self.recordDirectoryPath = recordDirectoryPath
        self.baseDirectoryURL = baseDirectoryURL
        self.deleteUploadIdOnCancelling = deleteUploadIdOnCancelling
        self.crcFlag = crcFlag
        self.sendContentMD5 = sendContentMD5
        self.contentType = contentType
        self.completeMetaHeader = completeMetaHeader
        self.callbackParam = callbackParam
        self.callbackVar = callbackVar
        self.uploadProgress = uploadProgress
        self.cancellation = OSSTransferCancellation()
    }

    /// Cancels the upload promptly: in-flight part requests are cancelled (not awaited to completion); then,
    /// per ``deleteUploadIdOnCancelling``, the upload is aborted and the record deleted, or both are kept. The
    /// call throws `taskCancelled`. Does nothing after ``pause()``.
    public func cancel() {
        cancellation.cancel()
    }

    /// Pauses the upload promptly, like ``cancel()``, but always keeps the multipart upload and the record,
    /// whatever ``deleteUploadIdOnCancelling`` says. The call throws `taskPaused`, whose
    /// ``OSSClientError/resumeToken`` describes the kept upload (`nil` if it was paused before the upload was
    /// initiated). Resume with a new request: the same call with the same record directory, or
    /// ``OSSClient/resumableUpload(_:resumingFrom:)`` with the token. Does nothing after ``cancel()``.
    public func pause() {
        cancellation.pause()
    }

    /// Whether ``cancel()`` was called on this request or a copy of it.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Whether ``pause()`` was called on this request or a copy of it.
    public var isPaused: Bool { cancellation.isPaused }
}

extension OSSResumableUploadRequest {
    /// The iOS SDK's part-size rule: a part size of 0, or under 100 KB (``minimumPartSize``) for a file larger
    /// than 100 KB, is an error, never silently raised (a ported app that relied on the raise would otherwise
    /// change its record identity and part count without a word).
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument`.
    static func checkPartSize(_ partSize: Int64, fileSize: Int64) throws {
        guard partSize > 0, partSize >= minimumPartSize || fileSize <= minimumPartSize else {
            throw OSSClientError(
                .invalidArgument,
                "partSize must be at least \(minimumPartSize) bytes (100 KB) for a file of \(fileSize) bytes, not \(partSize)")
        }
    }
}

/// The result of ``OSSClient/resumableUpload(_:)``.
public struct OSSResumableUploadResult: Sendable {
    /// The object's ETag (opaque for multipart objects).
    public var eTag: String?
    /// The object's CRC-64 as the server reports it (checked against the parts' combined CRC in CRC mode).
    public var crc64: UInt64?
    /// The request id of CompleteMultipartUpload.
    public var requestId: String
    /// The callback server's answer, when ``OSSResumableUploadRequest/callbackParam`` was set.
    public var callbackBody: Data?
    /// The multipart upload id that became the object.
    public var uploadId: String
    /// The bytes that were already on the server when the upload resumed (0 for a fresh upload).
    public var resumedBytes: Int64
    /// The part size used (possibly grown, or taken from the record).
    public var partSize: Int64
    /// The object's size.
    public var totalBytes: Int64
}
