import Foundation

/// Batches: directory transfers and lists of items, kept as a persistent queue in the manager's record directory
/// and run by the batch layer (``OSSBatch``); the manager only forwards to it.
///
/// After a kill or a relaunch, ``batches()`` lists them and ``resumeBatch(_:sources:)`` continues one: items that
/// ended are not sent again, a file in flight resumes from its own checkpoint record, failed items are tried again.
extension OSSTransferManager {
    /// Uploads the files under `directory` to `prefix` (see ``OSSDirectoryTransferRequest``).
    public func uploadDirectory(
        _ directory: URL, toBucket bucketName: String, prefix: String,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) async throws -> OSSBatch {
        try await startBatch(.upload(from: directory, toBucket: bucketName, prefix: prefix, options: options))
    }

    /// Downloads the objects under `prefix` into `directory` (see ``OSSDirectoryTransferRequest``).
    public func downloadDirectory(
        fromBucket bucketName: String, prefix: String, to directory: URL,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) async throws -> OSSBatch {
        try await startBatch(.download(fromBucket: bucketName, prefix: prefix, to: directory, options: options))
    }

    /// Uploads each item (a file, `Data` or a stream) to its key, as one batch (see ``OSSListTransferRequest``).
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` before anything is sent when an item is bad (an empty key,
    ///   one over 1,023 bytes or starting with `/`, a key given twice, a URL that is not a file's), with an
    ///   ``OSSBatchListProblem`` naming it as ``OSSClientError/underlying``; `fileCantWrite` when the batch's
    ///   directory cannot be made. A file that is missing or unreadable is that item's failure in the report.
    public func uploadBatch(
        _ items: [OSSBatchUploadItem], toBucket bucketName: String,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) async throws -> OSSBatch {
        let described = items.map(\.described)
        var sources: [String: OSSBatchUploadSource] = [:]
        for item in items {
            if case .file = item.source { continue }
            sources[item.key] = item.source
        }
        let list = OSSListTransferRequest(
            direction: .upload, bucketName: bucketName, localDirectoryPath: nil, uploads: described, downloads: [],
            options: options)
        try list.validate()  // in the order given, so the problem's index is the caller's
        var sorted = list
        sorted.uploads.sort { OSSKeyOrder.precedes($0.key, $1.key) }
        return try await batchStore.start(.list(sorted), sources: sources)
    }

    /// Downloads each item's object into its file under `directory` (the key, or the item's own path, relative to
    /// it), as one batch. A key or path never chooses a file outside `directory`.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` before anything is fetched when an item is bad (an empty or
    ///   too long key, a key given twice, a path with `..`, a leading `/` or an empty component, two items to one
    ///   file), with an ``OSSBatchListProblem`` naming it as ``OSSClientError/underlying``.
    public func downloadBatch(
        _ items: [OSSBatchDownloadItem], fromBucket bucketName: String, to directory: URL,
        options: OSSDirectoryTransferOptions = OSSDirectoryTransferOptions()
    ) async throws -> OSSBatch {
        var list = OSSListTransferRequest(
            direction: .download, bucketName: bucketName, localDirectoryPath: directory.standardizedFileURL.path,
            uploads: [], downloads: items, options: options)
        try list.validate()
        list.downloads.sort { OSSKeyOrder.precedes($0.key, $1.key) }
        return try await batchStore.start(.list(list))
    }

    /// Starts a directory batch and returns it running (a dry run keeps no journal and cannot be resumed).
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` for a bad request (naming the value), `fileCantWrite` when
    ///   the batch's directory cannot be made.
    public func startBatch(_ request: OSSDirectoryTransferRequest) async throws -> OSSBatch {
        try await batchStore.start(.directory(request))
    }

    /// Resumes the batch `id` (paused, stopped, interrupted by a kill, failed, or completed with failures): the
    /// items an earlier run finished are skipped without a request, a file in flight resumes from its checkpoint
    /// record, failed items are tried again. A batch already running here is returned as it is.
    ///
    /// - Parameter sources: for a list upload resumed in another process than the one that started it, gives back
    ///   the bytes of its `Data` and stream items not yet sent (``OSSBatchUploadSource``); an item it does not give
    ///   back fails with ``OSSClientErrorCode/batchSourceNeeded``. In the process that started the batch, the
    ///   sources it was given are used first.
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no batch `id`; `transferInUse` when another
    ///   process runs it; `fileCantRead` when its journal cannot be read.
    public func resumeBatch(_ id: String, sources: OSSBatchSourceProvider? = nil) async throws -> OSSBatch {
        try await batchStore.resume(id, provider: sources)
    }

    /// The batch `id` if it is running in this manager.
    public func runningBatch(_ id: String) -> OSSBatch? {
        batchStore.running(id)
    }

    /// Every batch in the record directory, oldest first: its request, state (``OSSBatchState/running`` when this
    /// manager or another process runs it), counts from its journal, and the items in flight.
    ///
    /// - Throws: ``OSSClientError`` `fileCantRead` when the directory cannot be listed. A batch whose journal
    ///   cannot be read is left out.
    public func batches() async throws -> [OSSBatchInfo] {
        try await batchStore.list()
    }

    /// The batch `id` as ``batches()`` describes it.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no batch `id`, `fileCantRead` or
    ///   `invalidArgument` when its journal cannot be read.
    public func batchInfo(_ id: String) async throws -> OSSBatchInfo {
        try await batchStore.info(id)
    }

    /// Removes the batch `id`: stops it if it runs here, aborts the multipart uploads of its files in flight,
    /// deletes their temporary files, and removes its journal. Files and objects already transferred stay.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no batch `id`; `transferInUse` when another
    ///   process runs it; the error of an abort (the batch is then kept, so removing it again retries).
    public func removeBatch(_ id: String) async throws {
        try await batchStore.remove(id)
    }
}
