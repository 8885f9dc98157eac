#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a batch transfers: a directory (walked, or a prefix listed), or an explicit list of items.
public enum OSSBatchRequest: Sendable, Hashable, Codable {
    case directory(OSSDirectoryTransferRequest)
    case list(OSSListTransferRequest)

    public var direction: OSSDirectoryTransferRequest.Direction {
        switch self {
        case .directory(let request): request.direction
        case .list(let request): request.direction
        }
    }

    public var bucketName: String {
        switch self {
        case .directory(let request): request.bucketName
        case .list(let request): request.bucketName
        }
    }

    public var options: OSSDirectoryTransferOptions {
        get {
            switch self {
            case .directory(let request): request.options
            case .list(let request): request.options
            }
        }
        set {
            switch self {
            case .directory(var request):
                request.options = newValue
                self = .directory(request)
            case .list(var request):
                request.options = newValue
                self = .list(request)
            }
        }
    }

    /// The directory request, for a directory batch.
    public var directory: OSSDirectoryTransferRequest? {
        if case .directory(let request) = self { return request }
        return nil
    }

    /// The list request, for a list batch.
    public var list: OSSListTransferRequest? {
        if case .list(let request) = self { return request }
        return nil
    }

    /// The local directory downloads are written under (also a list download's); `""` for a list upload, whose
    /// files each have their own path.
    var localRoot: String {
        switch self {
        case .directory(let request): request.localDirectoryPath
        case .list(let request): request.localDirectoryPath ?? ""
        }
    }

    /// The request with every local path passed through `transform` (to keep it relative to a base directory in
    /// the journal, and back).
    func mappingPaths(_ transform: (String) throws -> String) rethrows -> Self {
        switch self {
        case .directory(var request):
            request.localDirectoryPath = try transform(request.localDirectoryPath)
            return .directory(request)
        case .list(var request):
            request.localDirectoryPath = try request.localDirectoryPath.map(transform)
            for index in request.uploads.indices {
                if let file = request.uploads[index].filePath { request.uploads[index].filePath = try transform(file) }
            }
            return .list(request)
        }
    }

    /// Every local path of the request.
    var localPaths: [String] {
        switch self {
        case .directory(let request): [request.localDirectoryPath]
        case .list(let request): [request.localDirectoryPath].compactMap { $0 } + request.uploads.compactMap(\.filePath)
        }
    }
}

/// A batch of explicit items: files, `Data` or streams uploaded to the keys given, or objects downloaded to the
/// paths given under one directory. It runs like a directory batch (``OSSTransferManager/uploadBatch(_:toBucket:options:)``, ``OSSTransferManager/downloadBatch(_:fromBucket:to:options:)``):
/// the same journal, resume, progress, events and report.
///
/// ```swift
/// let items = photos.map { OSSBatchUploadItem(file: $0.url, key: "albums/\(album)/\($0.name)", contentType: "image/jpeg") }
/// let batch = try await manager.uploadBatch(items, toBucket: "my-bucket")
/// let report = try await batch.result()
/// ```
///
/// Items run in the byte order of their keys (the journal's mark relies on it), not in the order given. What the
/// journal keeps of each item is this description: keys, files' paths, content types and metadata. The bytes of a
/// `Data` or stream item live only in the process that started the batch; see ``OSSBatchUploadSource``.
public struct OSSListTransferRequest: Sendable, Hashable, Codable {
    /// One upload of the list as the journal keeps it.
    public struct Upload: Sendable, Hashable, Codable {
        /// Where an upload's bytes come from.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// A local file: read again on a resume.
            case file
            /// `Data` in memory: given again on a resume in another process.
            case data
            /// A stream: given again on a resume in another process.
            case stream
        }

        public var key: String
        public var kind: Kind
        /// The file's path (absolute) for ``Kind/file``.
        public var filePath: String?
        /// The bytes of a data item, the expected bytes of a stream item when it said so.
        public var size: Int64?
        public var contentType: String?
        public var metadata: [String: String]?
    }

    public var direction: OSSDirectoryTransferRequest.Direction
    public var bucketName: String
    /// A download's directory (absolute): every item's file lies under it. `nil` for an upload.
    public var localDirectoryPath: String?
    /// An upload's items, sorted by key.
    public var uploads: [Upload]
    /// A download's items, sorted by key.
    public var downloads: [OSSBatchDownloadItem]
    /// ``OSSDirectoryTransferOptions/filesAtOnce``, the part and threshold sizes, ``OSSDirectoryTransferOptions/priority``,
    /// CRC, the failure policy, ``OSSDirectoryTransferOptions/objectMetadata`` (under each item's own) and dry
    /// runs apply; the choice of files (mode, include, exclude, deleting extras) is a directory's and is refused.
    public var options: OSSDirectoryTransferOptions

    /// Checks what a list batch cannot run without, before anything moves.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument`; for a bad item its ``OSSClientError/underlying`` is an
    ///   ``OSSBatchListProblem`` naming the item.
    func validate() throws {
        guard !bucketName.isEmpty else { throw OSSClientError.invalidArgument("a list batch needs a bucket name") }
        guard options.mode == .copy, !options.deleteExtras, options.include.isEmpty, options.exclude.isEmpty else {
            throw OSSClientError.invalidArgument(
                "a list batch sends every item it is given: mode .sync, deleteExtras, include and exclude choose the files of a directory")
        }
        try options.validate()
        switch direction {
        case .upload:
            try Self.check(uploads.map(\.key), path: { _ in nil })
            if let index = uploads.firstIndex(where: { $0.kind == .file && !($0.filePath?.hasPrefix("/") ?? false) }) {
                throw OSSBatchListProblem(index: index, key: uploads[index].key, reason: .notAFileURL).error
            }
        case .download:
            guard let root = localDirectoryPath, root.hasPrefix("/") else {
                throw OSSClientError.invalidArgument("a list download needs an absolute local directory")
            }
            try Self.check(downloads.map(\.key), path: { downloads[$0].relativePath })
        }
    }

    /// Checks each key (and for a download, the path it is written to): not empty, at most 1,023 bytes, not from
    /// `/` or `\`, not twice; a download's path stays under its directory (``OSSBatchPaths/target(ofKey:prefix:)``)
    /// and is no other item's.
    private static func check(_ keys: [String], path: (Int) -> String?) throws {
        var seenKeys: [String: Int] = [:]
        var seenPaths: [String: Int] = [:]
        for (index, key) in keys.enumerated() {
            func problem(_ reason: OSSBatchListProblem.Reason) -> OSSClientError {
                OSSBatchListProblem(index: index, key: key, reason: reason).error
            }
            if key.isEmpty { throw problem(.emptyKey) }
            if key.utf8.count > OSSBatchPaths.maximumKeyLength { throw problem(.keyTooLong(bytes: key.utf8.count)) }
            if key.hasPrefix("/") || key.hasPrefix("\\") { throw problem(.keyStartsWithSeparator) }
            if let first = seenKeys.updateValue(index, forKey: key) { throw problem(.duplicateKey(firstIndex: first)) }
            guard let relative = path(index) else { continue }
            switch OSSBatchPaths.target(ofKey: relative, prefix: "") {
            case .file(let file):
                if let first = seenPaths.updateValue(index, forKey: file) { throw problem(.duplicatePath(firstIndex: first)) }
            case .directory, .root:
                throw problem(.notAFilePath(relative))
            case .refused(let refusal):
                throw problem(.unsafePath(relative, refusal))
            }
        }
    }
}

/// One upload of a list batch: where its bytes come from, its key, and what its object is given.
public struct OSSBatchUploadItem: Sendable {
    public var key: String
    public var source: OSSBatchUploadSource
    /// `Content-Type` of the object (else guessed from the key's extension by the server's rules).
    public var contentType: String?
    /// Metadata of the object, read like ``OSSDirectoryTransferOptions/objectMetadata`` (whose entries it
    /// overrides).
    public var metadata: [String: String]?

    public init(key: String, source: OSSBatchUploadSource, contentType: String? = nil, metadata: [String: String]? = nil) {
        self.key = key
        self.source = source
        self.contentType = contentType
        self.metadata = metadata
    }

    /// A local file (a `file:` URL) to `key`.
    public init(file: URL, key: String, contentType: String? = nil, metadata: [String: String]? = nil) {
        self.init(key: key, source: .file(file), contentType: contentType, metadata: metadata)
    }

    /// `data` to `key`.
    public init(data: Data, key: String, contentType: String? = nil, metadata: [String: String]? = nil) {
        self.init(key: key, source: .data(data), contentType: contentType, metadata: metadata)
    }

    /// How the journal describes it.
    var described: OSSListTransferRequest.Upload {
        switch source {
        case .file(let url):
            let path = url.isFileURL ? url.standardizedFileURL.path : ""
            return .init(key: key, kind: .file, filePath: path, contentType: contentType, metadata: metadata)
        case .data(let data):
            return .init(key: key, kind: .data, size: Int64(data.count), contentType: contentType, metadata: metadata)
        case .stream(let size, _):
            return .init(key: key, kind: .stream, size: size, contentType: contentType, metadata: metadata)
        }
    }
}

/// Where the bytes of an upload in a list batch come from.
///
/// A file is read when its turn comes (and read again from its checkpoint record when a batch resumes, in any
/// process). `Data` and streams live in memory: the batch keeps them while this process runs it, so a pause and
/// ``OSSTransferManager/resumeBatch(_:sources:)`` in the same process need nothing more. A resume in another
/// process (after a kill or a relaunch) asks its `sources` closure for each such item not yet sent; an item it
/// does not give back fails with ``OSSClientErrorCode/batchSourceNeeded`` (and the batch ends
/// ``OSSBatchState/completedWithFailures``, so resuming it again with the source retries only that item). A
/// stream is uploaded with ``OSSClient/uploadStream(_:bucket:key:options:)``: a stream item stopped midway is
/// sent again from its start (its multipart upload is aborted), never resumed from a part.
public enum OSSBatchUploadSource: Sendable {
    /// A local file (`file:` URL).
    case file(URL)
    /// Bytes in memory: one PutObject.
    case data(Data)
    /// A stream made by `make` each time the item is sent (a retry after a failure or a pause calls it again);
    /// `expectedSize` (when known) counts in the batch's byte totals before the bytes move.
    case stream(expectedSize: Int64?, make: @Sendable () async throws -> AsyncThrowingStream<Data, any Error>)
}

/// Gives the bytes of a `Data` or stream item back to a batch resumed in another process than the one that
/// started it (``OSSTransferManager/resumeBatch(_:sources:)``): called with the item's journaled description
/// once for each such item not yet sent. Return `.data` or `.stream` (a `.file` fails the item with
/// `invalidArgument`: the list said it was in memory); `nil` leaves the item failed with
/// ``OSSClientErrorCode/batchSourceNeeded``.
public typealias OSSBatchSourceProvider = @Sendable (OSSListTransferRequest.Upload) async throws -> OSSBatchUploadSource?

/// One download of a list batch: a key, and the file it is written to under the batch's directory.
public struct OSSBatchDownloadItem: Sendable, Hashable, Codable {
    public var key: String
    /// The file's path under the batch's directory, `/`-separated; `nil`: the key itself. Either way it must stay
    /// under the directory: no `..`, no leading `/`, no empty or `.` component (``OSSBatchListProblem``).
    public var path: String?
    /// The version to download, in a bucket with versioning; `nil`: the key's current version (a download that
    /// resumes keeps to the version it began with either way).
    public var versionId: String?

    public init(key: String, path: String? = nil, versionId: String? = nil) {
        self.key = key
        self.path = path
        self.versionId = versionId
    }

    /// The path the file is written at, under the directory.
    var relativePath: String { path ?? key }
}

/// Why a list batch was refused before anything moved: the item and what is wrong with it. Thrown as the
/// ``OSSClientError/underlying`` of an ``OSSClientErrorCode/invalidArgument`` error.
public struct OSSBatchListProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Reason: Sendable, Hashable {
        case emptyKey
        /// Longer than the 1,023 bytes OSS allows.
        case keyTooLong(bytes: Int)
        /// A key starting with `/` or `\`, which OSS refuses.
        case keyStartsWithSeparator
        /// The key of item `firstIndex` too: one object, one item.
        case duplicateKey(firstIndex: Int)
        /// A download written to the same file as item `firstIndex`.
        case duplicatePath(firstIndex: Int)
        /// A download path that would leave the batch's directory or cannot name a file.
        case unsafePath(String, OSSBatchRefusal)
        /// A download path that names a directory (a trailing `/`) or nothing.
        case notAFilePath(String)
        /// An upload's file given by a URL that is not a `file:` URL.
        case notAFileURL
    }

    /// The item's index in the list given.
    public var index: Int
    public var key: String
    public var reason: Reason

    public var description: String {
        let what: String =
            switch reason {
            case .emptyKey: "an empty key"
            case .keyTooLong(let bytes): "a key of \(bytes) bytes (at most \(OSSBatchPaths.maximumKeyLength))"
            case .keyStartsWithSeparator: "a key that starts with '/' or '\\'"
            case .duplicateKey(let first): "the key of item \(first) again"
            case .duplicatePath(let first): "the file of item \(first) again"
            case .unsafePath(let path, let refusal): "the path \(path): \(refusal)"
            case .notAFilePath(let path): "the path \(path), which names no file"
            case .notAFileURL: "a source URL that is not a file: URL"
            }
        return "item \(index) (\(key)) has \(what)"
    }

    var error: OSSClientError {
        OSSClientError(.invalidArgument, "the batch's list was refused: \(self)", underlying: self)
    }
}

/// The in-memory sources of a list upload: those given when it started (kept while this process runs the
/// batch), then the provider given to a resume.
struct OSSBatchSources: Sendable {
    var given: [String: OSSBatchUploadSource] = [:]
    var provider: OSSBatchSourceProvider?

    /// The source of `item`, or a failure saying it is needed.
    func source(of item: OSSListTransferRequest.Upload) async throws -> OSSBatchUploadSource {
        if let source = given[item.key] { return source }
        if let source = try await provider?(item) { return source }
        throw OSSBatchItemProblem.failed(
            OSSBatchFailure(
                .batchSourceNeeded,
                "the \(item.kind.rawValue) of \(item.key) lived in the process that started the batch; give it back to resumeBatch(_:sources:)"
            ))
    }
}

/// The steps of a list batch: its items in key order. An upload's file is looked at when its turn comes (a
/// missing file is that item's failure, not the batch's).
struct OSSBatchListPlanner: OSSBatchSteps {
    let request: OSSListTransferRequest
    private var index = 0

    init(request: OSSListTransferRequest) {
        self.request = request
    }

    mutating func next() async throws -> OSSBatchStep? {
        switch request.direction {
        case .upload:
            guard index < request.uploads.count else { return nil }
            defer { index += 1 }
            return await step(request.uploads[index])
        case .download:
            guard index < request.downloads.count else { return nil }
            defer { index += 1 }
            let item = request.downloads[index]
            var work = OSSBatchWork(key: item.key, relativePath: item.relativePath, bytes: 0, action: .downloadKey)
            work.versionId = item.versionId
            return .work(work)
        }
    }

    private func step(_ item: OSSListTransferRequest.Upload) async -> OSSBatchStep {
        guard item.kind == .file, let path = item.filePath else {
            return .work(
                OSSBatchWork(key: item.key, relativePath: "", bytes: item.size ?? 0, action: .uploadSource(item)))
        }
        switch await OSSDirectoryWalker.entry(atPath: path) {
        case .success(let entry) where entry.kind == .file:
            var work = OSSBatchWork(key: item.key, relativePath: path, bytes: entry.size, action: .upload(entry))
            work.localFile = path
            work.metadata = item.objectMetadata
            return .work(work)
        case .success:
            return .report(OSSBatchItem(key: item.key, relativePath: path, outcome: .refused(.unsupportedFileType), bytes: 0))
        case .failure(let error):
            return .report(
                OSSBatchItem(
                    key: item.key, relativePath: path, outcome: .failed(OSSBatchPlanner.unreadable(path, error.code)), bytes: 0))
        }
    }
}

extension OSSListTransferRequest.Upload {
    /// The item's own metadata with its content type, as ``OSSDirectoryTransferOptions/objectMetadata`` reads it.
    var objectMetadata: [String: String]? {
        guard let contentType else { return metadata }
        var merged = (metadata ?? [:]).filter { $0.key.lowercased() != "content-type" }
        merged["Content-Type"] = contentType
        return merged
    }
}
