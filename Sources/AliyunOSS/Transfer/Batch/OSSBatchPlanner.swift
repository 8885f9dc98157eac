#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One thing a batch has to do, found by the ``OSSBatchPlanner``.
struct OSSBatchWork: Sendable {
    enum Action: Sendable {
        /// Send the local file.
        case upload(OSSLocalEntry)
        /// Send the local file unless its CRC-64 is the object's (sync by checksum, equal sizes).
        case uploadUnlessEqual(OSSLocalEntry)
        /// Send the local file unless the object's `x-oss-meta-mtime` is the file's modification time (sync by
        /// time, a file modified after the object's `Last-Modified`).
        case uploadUnlessStamped(OSSLocalEntry)
        /// Fetch the object into the file at the item's relative path.
        case download(OSSObjectSummary)
        /// Fetch the object unless the file's CRC-64 is the object's (sync by checksum, equal sizes).
        case downloadUnlessEqual(OSSObjectSummary, local: OSSLocalEntry)
        /// Delete the object (an upload's extra).
        case deleteObject
        /// Delete the local file, if it is still the one the walk saw (a download's extra).
        case deleteFile(OSSLocalEntry)
        /// Create the directory of a directory marker.
        case makeDirectory
        /// Send a list item's `Data` or stream.
        case uploadSource(OSSListTransferRequest.Upload)
        /// Fetch a list item's object into the file at the item's relative path (its size comes with a HEAD).
        case downloadKey
    }

    let key: String
    let relativePath: String
    /// The bytes a transfer would move (0 for deletions and directories).
    let bytes: Int64
    let action: Action
    /// A list item's own file (absolute); `nil`: the relative path under the batch's directory.
    var localFile: String?
    /// A list item's own metadata, over the options' ``OSSDirectoryTransferOptions/objectMetadata``.
    var metadata: [String: String]?
    /// A list item's version to download (``OSSBatchDownloadItem/versionId``); `nil`: the current one.
    var versionId: String?

    /// Whether it moves bytes (and so counts in the byte totals).
    var transfers: Bool {
        switch action {
        case .upload, .uploadUnlessEqual, .uploadUnlessStamped, .download, .downloadUnlessEqual, .uploadSource, .downloadKey:
            true
        case .deleteObject, .deleteFile, .makeDirectory: false
        }
    }

    /// What a dry run reports for it without running it; `nil` when deciding needs I/O (a checksum).
    var plannedOutcome: OSSBatchItemOutcome? {
        switch action {
        case .upload, .uploadSource: .wouldUpload
        case .download, .downloadKey: .wouldDownload
        case .deleteObject, .deleteFile: .wouldDelete
        case .makeDirectory: .wouldCreateDirectory
        case .uploadUnlessEqual, .uploadUnlessStamped, .downloadUnlessEqual: nil
        }
    }
}

/// A step of a batch: an item reported at once, or work to run.
enum OSSBatchStep: Sendable {
    case report(OSSBatchItem)
    case work(OSSBatchWork)
}

/// What a run takes its steps from, in key order: a directory's planner or a list's.
protocol OSSBatchSteps {
    /// The next step, `nil` at the end.
    mutating func next() async throws -> OSSBatchStep?
}

/// The objects under a prefix, one at a time, fetched a page (at most 1,000 keys) at a time: never the whole
/// listing.
struct OSSListingCursor {
    private var pages: OSSListObjectsV2Paginator.AsyncIterator
    private var page: [OSSObjectSummary] = []
    private var index = 0

    init(client: OSSClient, bucket: String, prefix: String) {
        pages = client.listObjectsV2Paginator(
            OSSListObjectsV2Request(bucketName: bucket, prefix: prefix.isEmpty ? nil : prefix, maxKeys: 1000)
        ).makeAsyncIterator()
    }

    mutating func next() async throws -> OSSObjectSummary? {
        while index >= page.count {
            guard let next = try await pages.next() else { return nil }
            page = next.contents
            index = 0
        }
        defer { index += 1 }
        return page[index]
    }
}

/// Decides what a batch does, item by item, in key order: the local walk (uploads, and a download's local
/// side) merged with the listing (a download's source, and an upload's destination when it syncs or deletes
/// extras). Both sides are read lazily, so memory does not grow with the number of files.
///
/// Sync rules (``OSSSyncComparison``), for a file and an object with the same key:
/// - copy mode: always transfer;
/// - size and modification time: upload when the sizes differ, or the file was modified after the object's
///   `Last-Modified` and the object's `x-oss-meta-mtime` is not the file's modification time (one HEAD for such
///   a file); download when the sizes differ or the file's modification time is not the object's
///   `Last-Modified` within a second;
/// - checksum: transfer when the sizes differ, else compare CRC-64s (work for a task).
///
/// Deleting extras never touches an excluded path, the key of anything the walk found but did not send (a
/// skipped link, a loop, a special file, an unreadable file) or anything under a local directory that could not
/// be read or was not walked (a loop).
struct OSSBatchPlanner: OSSBatchSteps {
    let request: OSSDirectoryTransferRequest
    let filter: OSSPathFilter
    private var walker: OSSDirectoryWalker?
    private var listing: OSSListingCursor?
    private var localHead: OSSLocalEntry?
    private var remoteHead: OSSObjectSummary?
    private var localDone = false
    private var remoteDone = false
    /// Keys under this prefix are not deleted (a local directory that could not be walked).
    private var protectedPrefix: String?

    var prefix: String { request.prefix }
    var options: OSSDirectoryTransferOptions { request.options }

    /// - Parameter localExists: whether the local directory exists (a download into a new one has no local side).
    init(request: OSSDirectoryTransferRequest, client: OSSClient, localExists: Bool) throws {
        self.request = request
        filter = try OSSPathFilter(request.options)
        let follows = request.options.symbolicLinks == .follow
        let isSync = if case .sync = request.options.mode { true } else { false }
        switch request.direction {
        case .upload:
            walker = OSSDirectoryWalker(root: request.localDirectoryPath, followsLinks: follows, filter: filter)
            if isSync || request.options.deleteExtras {
                listing = OSSListingCursor(client: client, bucket: request.bucketName, prefix: request.prefix)
            }
        case .download:
            listing = OSSListingCursor(client: client, bucket: request.bucketName, prefix: request.prefix)
            if localExists && (isSync || request.options.deleteExtras) {
                walker = OSSDirectoryWalker(root: request.localDirectoryPath, followsLinks: follows, filter: filter)
            }
        }
        localDone = walker == nil
        remoteDone = listing == nil
    }

    /// The next step, `nil` at the end.
    mutating func next() async throws -> OSSBatchStep? {
        while true {
            try await fill()
            let local = localHead.map { (entry: $0, key: localKey($0)) }
            let remote = remoteHead
            switch (local, remote) {
            case (nil, nil):
                return nil
            case (let local?, nil):
                localHead = nil
                if let step = localOnly(local.entry, key: local.key) { return step }
            case (nil, let remote?):
                remoteHead = nil
                if let step = remoteOnly(remote) { return step }
            case (let local?, let remote?):
                if OSSKeyOrder.precedes(local.key, remote.objectKey) {
                    localHead = nil
                    if let step = localOnly(local.entry, key: local.key) { return step }
                } else if OSSKeyOrder.precedes(remote.objectKey, local.key) {
                    remoteHead = nil
                    if let step = remoteOnly(remote) { return step }
                } else {
                    (localHead, remoteHead) = (nil, nil)
                    if let step = both(local.entry, remote) { return step }
                }
            }
        }
    }

    private mutating func fill() async throws {
        while localHead == nil, !localDone {
            guard let entry = try await walker?.next() else {
                localDone = true
                break
            }
            // A download's own temporary files are not part of the tree.
            if request.direction == .download, entry.relativePath.contains(".osstmp-") { continue }
            localHead = entry
        }
        if remoteHead == nil, !remoteDone {
            if let summary = try await listing?.next() {
                remoteHead = summary
            } else {
                remoteDone = true
            }
        }
    }

    /// The key a local entry has (a directory's ends in `/`); for a name that is not UTF-8, its lossy form, which
    /// only orders it.
    private func localKey(_ entry: OSSLocalEntry) -> String {
        prefix + entry.relativePath + (entry.isDirectory || entry.isDirectoryNotEntered ? "/" : "")
    }

    private func item(_ key: String, _ path: String, _ outcome: OSSBatchItemOutcome, bytes: Int64 = 0) -> OSSBatchStep {
        .report(OSSBatchItem(key: key, relativePath: path, outcome: outcome, bytes: bytes))
    }

    private func work(_ key: String, _ path: String, bytes: Int64 = 0, _ action: OSSBatchWork.Action) -> OSSBatchStep {
        .work(OSSBatchWork(key: key, relativePath: path, bytes: bytes, action: action))
    }

    // MARK: - One side

    private mutating func localOnly(_ entry: OSSLocalEntry, key: String) -> OSSBatchStep? {
        let path = entry.relativePath
        switch (request.direction, entry.kind) {
        case (.upload, .file):
            if let refusal = OSSBatchPaths.refusal(prefix: prefix, relativePath: path) {
                return item(key, path, .refused(refusal), bytes: entry.size)
            }
            return work(key, path, bytes: entry.size, .upload(entry))
        case (.upload, .directory), (.download, .directory):
            return nil
        case (.upload, .refused(let refusal)):
            protectSubtree(of: entry, key: key)
            return item(prefix + path, path, .refused(refusal))
        case (.upload, .unreadable(let code)):
            protectSubtree(of: entry, key: key)
            return item(prefix + path, path, .failed(Self.unreadable(path, code)))
        case (.download, .file):
            guard options.deleteExtras, !isProtected(key) else { return nil }
            return work(key, path, .deleteFile(entry))
        case (.download, .refused), (.download, .unreadable):
            // Not the batch's to report (the download writes files, not links); not deleted either.
            protectSubtree(of: entry, key: key)
            return nil
        }
    }

    private mutating func remoteOnly(_ summary: OSSObjectSummary) -> OSSBatchStep? {
        let key = summary.objectKey
        switch request.direction {
        case .upload:
            let path = OSSBatchPaths.reportedPath(ofKey: key, prefix: prefix)
            guard options.deleteExtras, !isProtected(key), filter.takes(keyPath: path, isDirectory: key.hasSuffix("/"))
            else { return nil }
            return work(key, path, .deleteObject)
        case .download:
            switch OSSBatchPaths.target(ofKey: key, prefix: prefix) {
            case .root:
                return nil
            case .refused(let refusal):
                return item(key, OSSBatchPaths.reportedPath(ofKey: key, prefix: prefix), .refused(refusal), bytes: summary.size)
            case .directory(let path):
                guard options.directoryMarkers == .create, filter.takes(keyPath: path, isDirectory: true) else { return nil }
                return work(key, path, .makeDirectory)
            case .file(let path):
                guard filter.takes(keyPath: path, isDirectory: false) else { return nil }
                return work(key, path, bytes: summary.size, .download(summary))
            }
        }
    }

    // MARK: - Both sides

    private mutating func both(_ entry: OSSLocalEntry, _ summary: OSSObjectSummary) -> OSSBatchStep? {
        let (key, path) = (summary.objectKey, entry.relativePath)
        switch (request.direction, entry.kind) {
        case (.upload, .file):
            guard case .sync(let comparison) = options.mode else { return work(key, path, bytes: entry.size, .upload(entry)) }
            if summary.size != entry.size { return work(key, path, bytes: entry.size, .upload(entry)) }
            if comparison == .checksum { return work(key, path, bytes: entry.size, .uploadUnlessEqual(entry)) }
            guard let written = summary.lastModified else { return work(key, path, bytes: entry.size, .upload(entry)) }
            // Modified before the object was written (or given its time by a download): unchanged. After it: the
            // object's own record of the file's time decides (`Last-Modified` has whole seconds, and a file's time
            // can be in the future).
            if entry.modificationDate.timeIntervalSince(written) <= 0.001 { return item(key, path, .unchanged, bytes: entry.size) }
            return work(key, path, bytes: entry.size, .uploadUnlessStamped(entry))
        case (.download, .file):
            guard filter.takes(keyPath: path, isDirectory: false) else { return nil }
            guard case .sync(let comparison) = options.mode else {
                return work(key, path, bytes: summary.size, .download(summary))
            }
            if summary.size != entry.size { return work(key, path, bytes: summary.size, .download(summary)) }
            if comparison == .checksum {
                return work(key, path, bytes: summary.size, .downloadUnlessEqual(summary, local: entry))
            }
            guard let written = summary.lastModified,
                abs(entry.modificationDate.timeIntervalSince(written)) < 1
            else { return work(key, path, bytes: summary.size, .download(summary)) }
            return item(key, path, .unchanged, bytes: summary.size)
        case (_, .directory):
            // A directory and its marker: nothing to do either way.
            return nil
        case (.upload, _), (.download, _):
            // Something the walk does not send has the key: reported as when alone, never deleted.
            if request.direction == .download {
                // The object goes over it (a rename replaces a link, never follows it).
                if case .file(let path) = OSSBatchPaths.target(ofKey: key, prefix: prefix),
                    filter.takes(keyPath: path, isDirectory: false)
                {
                    return work(key, path, bytes: summary.size, .download(summary))
                }
                return nil
            }
            return localOnly(entry, key: key)
        }
    }

    // MARK: - Deletion guard

    /// Keeps what lies under an entry the walk did not go into (an unreadable directory, a loop, a link not
    /// followed) from being deleted as an extra.
    private mutating func protectSubtree(of entry: OSSLocalEntry, key: String) {
        protectedPrefix = key.hasSuffix("/") ? key : key + "/"
    }

    private func isProtected(_ key: String) -> Bool {
        guard let protectedPrefix else { return false }
        return key.utf8.starts(with: protectedPrefix.utf8) || key + "/" == protectedPrefix
    }

    static func unreadable(_ path: String, _ code: Int32) -> OSSBatchFailure {
        OSSBatchFailure(OSSClientError.file(writing: false, "cannot read \(path)", errno: code))
    }
}
