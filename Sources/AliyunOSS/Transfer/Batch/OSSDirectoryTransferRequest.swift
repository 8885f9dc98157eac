#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A directory transfer, the unit of work of a batch: a local directory uploaded under a prefix, or the objects
/// under a prefix downloaded into a local directory, every file copied or only what differs (a sync).
///
/// ```swift
/// var options = OSSDirectoryTransferOptions()
/// options.mode = .sync(.sizeAndModificationTime)
/// options.exclude = [".git", "*.tmp"]
/// let request = OSSDirectoryTransferRequest.upload(
///     from: URL(fileURLWithPath: "/data/site"), toBucket: "b", prefix: "site/", options: options)
/// let batch = try await manager.startBatch(request)
/// let report = try await batch.result()
/// ```
///
/// Keys and paths: an object's key is ``prefix`` followed by the file's path relative to ``localDirectoryPath``
/// with `/` separators (`photos/2026/a b.jpg`). A non-empty prefix names a directory: `site` and `site/` are the
/// same prefix. A downloaded key never chooses a path outside ``localDirectoryPath`` (see
/// ``OSSBatchRefusal``).
///
/// The request is stored (without credentials: there are none in it) in the batch's journal, so a batch resumed
/// after a relaunch runs with the same options.
public struct OSSDirectoryTransferRequest: Sendable, Hashable, Codable {
    /// Which way the bytes go.
    public enum Direction: String, Sendable, Hashable, Codable {
        /// Local directory → objects under the prefix.
        case upload
        /// Objects under the prefix → local directory.
        case download
    }

    public var direction: Direction
    public var bucketName: String
    /// The key prefix (`""` for the whole bucket). A non-empty prefix without a trailing `/` gets one (here, and
    /// when a batch starts): it names a directory of the bucket, never a part of a name.
    public var prefix: String
    /// The local directory (absolute): the source of an upload, the destination of a download (created when
    /// missing).
    public var localDirectoryPath: String
    public var options: OSSDirectoryTransferOptions

    public init(
        direction: Direction, bucketName: String, prefix: String, localDirectoryPath: String,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) {
        self.direction = direction
        self.bucketName = bucketName
        self.prefix = Self.directoryPrefix(prefix)
        self.localDirectoryPath = URL(fileURLWithPath: localDirectoryPath).standardizedFileURL.path
        self.options = options
    }

    /// Uploads the files under `directory` as objects under `prefix`.
    public static func upload(
        from directory: URL, toBucket bucketName: String, prefix: String,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) -> Self {
        Self(direction: .upload, bucketName: bucketName, prefix: prefix, localDirectoryPath: directory.path, options: options)
    }

    /// Downloads the objects under `prefix` into `directory`.
    public static func download(
        fromBucket bucketName: String, prefix: String, to directory: URL,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) -> Self {
        Self(direction: .download, bucketName: bucketName, prefix: prefix, localDirectoryPath: directory.path, options: options)
    }

    /// `prefix` as a directory: empty, or ending in exactly the `/` it was given or one added.
    static func directoryPrefix(_ prefix: String) -> String {
        prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
    }

    /// Checks what a batch cannot run without.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first bad value.
    func validate() throws {
        guard !bucketName.isEmpty else { throw OSSClientError.invalidArgument("a directory transfer needs a bucket name") }
        guard !prefix.hasPrefix("/"), !prefix.hasPrefix("\\") else {
            throw OSSClientError.invalidArgument("an object key cannot start with '/' or '\\': prefix \(prefix)")
        }
        guard localDirectoryPath.hasPrefix("/") else {
            throw OSSClientError.invalidArgument("the local directory must be an absolute path, not \(localDirectoryPath)")
        }
        try options.validate()
    }
}

extension OSSDirectoryTransferRequest {
    /// Whether `other` is the same transfer as this one: the same direction, bucket, prefix and directory, and
    /// every option that changes what ends where or how it is checked (mode, deletions, filters, links, the failure
    /// policy, the threshold and part size, CRC-64, directory markers, metadata, the file transport). Only how fast
    /// it goes may differ: ``OSSDirectoryTransferOptions/filesAtOnce``, ``OSSDirectoryTransferOptions/partsPerFile``
    /// and ``OSSDirectoryTransferOptions/priority``. A tool looking for a batch to resume (`oss cp -r`, `oss sync`)
    /// matches with this, so a run with another `--jobs` resumes the batch instead of starting it over.
    public func isSameTransfer(as other: OSSDirectoryTransferRequest) -> Bool {
        func withoutPace(_ request: OSSDirectoryTransferRequest) -> OSSDirectoryTransferRequest {
            var request = request
            request.options.filesAtOnce = 1
            request.options.partsPerFile = 1
            request.options.priority = .normal
            return request
        }
        return withoutPace(self) == withoutPace(other)
    }
}

/// How a directory transfer chooses, sends and reports its files.
public struct OSSDirectoryTransferOptions: Sendable, Hashable, Codable {
    /// Every file, or only what differs.
    public var mode: OSSDirectoryTransferMode = .copy
    /// Removes what the destination has and the source does not (objects under the prefix for an upload, files
    /// under the directory for a download). Excluded paths, and everything under a local directory that could
    /// not be read, are never deleted. Default `false`.
    public var deleteExtras = false
    /// Decides and reports every action (``OSSBatchItemOutcome/wouldUpload`` ...) without doing any: nothing is
    /// sent, written or deleted, and no journal is kept.
    public var dryRun = false
    /// Glob patterns of the files to take (all when empty); see ``OSSPathPattern``. Directories are always
    /// walked unless excluded.
    public var include: [String] = []
    /// Glob patterns of files and directories to leave out; an excluded directory is not walked at all. Exclusion
    /// wins over inclusion.
    public var exclude: [String] = []
    /// Whether symbolic links under the directory are followed. Default ``OSSSymbolicLinkPolicy/skip``.
    public var symbolicLinks: OSSSymbolicLinkPolicy = .skip
    /// What a failed file does to the rest. Default ``OSSBatchFailurePolicy/continueAndReport``.
    public var failurePolicy: OSSBatchFailurePolicy = .continueAndReport
    /// Files smaller than this go in one request (PutObject from a snapshot read into memory, GetObject into a
    /// temporary file); larger ones as resumable multipart transfers that survive a relaunch. Default 8 MiB.
    public var singleRequestThreshold: Int64 = 8 * 1024 * 1024
    /// The part size of the resumable transfers. Default 8 MiB.
    public var partSize: Int64 = 8 * 1024 * 1024
    /// Files moving at once (like ossutil's `--jobs`); the client's ``OSSClient/scheduler`` limits every
    /// transfer of the client as well. Default 8, 1...256.
    public var filesAtOnce = 8
    /// Parts in flight per resumable transfer (1...64). Default 4.
    public var partsPerFile = 4
    /// Where the batch's transfers queue in the client's scheduler. Default ``OSSTransferPriority/low``: a batch
    /// gives way to what the user is waiting for.
    public var priority: OSSTransferPriority = .low
    /// Whether CRC-64 is checked on every transfer; `nil` follows the client's `crcCheckEnabled` when the batch
    /// starts (the choice is kept for its resumption).
    public var crcFlag: Bool?
    /// What a download does with a key that ends in `/` (a directory marker). Default
    /// ``OSSDirectoryMarkerPolicy/create``.
    public var directoryMarkers: OSSDirectoryMarkerPolicy = .create
    /// What every object an upload creates is given, read like ``OSSPutObjectRequest/metadata``: `x-oss-meta-*`
    /// and bare names are user metadata; `Content-Type` (which replaces the guess from each file's extension),
    /// `Cache-Control`, `x-oss-object-acl`, `x-oss-storage-class` and other `x-oss-` headers are sent as
    /// themselves, with the PutObject or the InitiateMultipartUpload. The batch's own `x-oss-meta-mtime` wins over
    /// an entry of that name. Part of the request's identity (a resumed batch keeps it). Default `nil`: none.
    public var objectMetadata: [String: String]?
    /// The ``OSSBatchFileTransport/identifier`` of the transport that moves the batch's files (client-side
    /// encryption); `nil`: the batch's own requests. Set by the manager that starts the batch when it has a transport;
    /// a batch runs and resumes only where the transport has this identifier.
    public var fileTransport: String?

    public init() {}

    func validate() throws {
        guard (1...256).contains(filesAtOnce) else {
            throw OSSClientError.invalidArgument("filesAtOnce must be 1...256, not \(filesAtOnce)")
        }
        guard (1...OSSResumableUploadRequest.maximumThreadNum).contains(partsPerFile) else {
            throw OSSClientError.invalidArgument("partsPerFile must be 1...64, not \(partsPerFile)")
        }
        guard singleRequestThreshold >= 0 else {
            throw OSSClientError.invalidArgument("singleRequestThreshold must not be negative")
        }
        guard partSize >= OSSResumableUploadRequest.minimumPartSize else {
            throw OSSClientError.invalidArgument(
                "partSize must be at least \(OSSResumableUploadRequest.minimumPartSize), not \(partSize)")
        }
        for pattern in include + exclude {
            _ = try OSSPathPattern(pattern)
        }
    }
}

/// Which files a directory transfer sends.
public enum OSSDirectoryTransferMode: Sendable, Hashable, Codable {
    /// Every file, whatever the destination holds.
    case copy
    /// Only the files the destination lacks or holds differently (``OSSSyncComparison``).
    case sync(OSSSyncComparison)
}

/// How a sync decides that a file and an object differ. Both read the destination from the listing (one request
/// per 1,000 objects), not one request per file.
///
/// - Upload: a file is sent when the object is missing, its size differs, or the file was modified after the
///   object was written (local modification time later than the object's `Last-Modified`) and is not the file
///   the object was made from: the object's `x-oss-meta-mtime` — the file's modification time, which every batch
///   upload records — differs (one HEAD for such a file; it settles a file modified within the whole second of
///   `Last-Modified`, or dated in the future). The comparison uses the server's clock for the object and the
///   local clock for the file: a file changed within the clocks' offset of its last upload can look unchanged;
///   ``checksum`` is exact.
/// - Download: an object is fetched when the file is missing, its size differs, or its modification time is not
///   the object's `Last-Modified` (to the second). A downloaded file gets the object's `Last-Modified` as its
///   modification time, so the next sync finds it unchanged.
public enum OSSSyncComparison: String, Sendable, Hashable, Codable {
    /// Size and modification time (see above). Cheap; the default.
    case sizeAndModificationTime
    /// Size, then the CRC-64 of the file against the object's `x-oss-hash-crc64ecma` (a HEAD and a read of the
    /// file for each pair of equal size). An object without a CRC-64 is sent again. A downloaded file found equal
    /// gets the object's `Last-Modified`.
    case checksum
}

/// What a directory transfer does with symbolic links under its directory.
public enum OSSSymbolicLinkPolicy: String, Sendable, Hashable, Codable {
    /// Links are not followed and reported as ``OSSBatchRefusal/symbolicLinkSkipped`` (the default: a link can
    /// lead outside the directory that was named, or around in a loop). An upload never deletes the object of a
    /// skipped link as an extra. On download, a link met on the way to a destination refuses that key
    /// (``OSSBatchRefusal/symbolicLinkInPath``).
    case skip
    /// Links are followed as the files and directories they point to. A directory reached again through a link
    /// while inside it (same device and inode) is a loop: reported as ``OSSBatchRefusal/symbolicLinkLoop``, not
    /// walked again. A dangling link is a failure (`fileCantRead`).
    case follow
}

/// What a failed file does to the rest of a batch.
public enum OSSBatchFailurePolicy: String, Sendable, Hashable, Codable {
    /// Go on with the other files and report the failures (``OSSBatchReport/counts``, ``OSSBatchReport/problems``).
    case continueAndReport
    /// Stop at the first failure: no new file starts, resumable transfers in flight are paused (so resuming the
    /// batch continues them), and ``OSSBatch/result()`` throws ``OSSClientErrorCode/batchStopped``.
    case stopOnFirstFailure
}

/// What a download does with a key ending in `/` (a directory marker, as consoles create for folders).
public enum OSSDirectoryMarkerPolicy: String, Sendable, Hashable, Codable {
    /// Creates the directory (so empty folders come across).
    case create
    /// Ignores the marker.
    case skip
}
