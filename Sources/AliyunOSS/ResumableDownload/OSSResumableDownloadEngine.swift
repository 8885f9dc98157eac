#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Logging
import OSSResumable
import _NIOFileSystem

/// Performs the effects decided by ``OSSDownloadStateMachine`` for one call of `resumableDownload`.
///
/// Owned by a single task: the machine, the record store and the temporary file handle are only touched here,
/// so records are written one at a time, in part-completion order. Part GETs run in child tasks that only
/// stream bytes into the file and return the part's CRC-64.
final class OSSResumableDownloadEngine {
    enum Outcome {
        case finished(crc64: UInt64)
        case failed(OSSDownloadStateMachine.Failure)
    }

    let client: OSSClient
    let request: OSSResumableDownloadRequest
    let destinationPath: String
    let requestedRange: OSSRequestedRange?
    let partSize: Int64
    let threadNum: Int
    let crcMode: OSSCRCMode
    let store: OSSRecordStore?
    let recordName: String
    let tempFilePath: String
    /// records: where the destination, temporary file and record are, relative to the request's base directory.
    let location: OSSDownloadLocation
    /// The record of the resume token the call was given, checked against the request.
    let resumeRecord: OSSDownloadRecord?
    /// The byte-level progress, with ``OSSTransferProgressGranularity/bytes``.
    let byteProgress: OSSTransferByteProgress?
    var logger: Logger { client.configuration.logger }

    var machine: OSSDownloadStateMachine
    var handle: WriteFileHandle?
    var handlePath: String?
    var outcome: Outcome?
    /// The first error that made the download fail, rethrown for `Failure.operationFailed`.
    var cause: (any Error)?

    init(client: OSSClient, request: OSSResumableDownloadRequest, token: OSSResumeToken? = nil) throws {
        _ = try OSSTrafficLimit.headers(request.trafficLimit)  // parity-b: a precise error for a bad limit
        guard !request.bucketName.isEmpty, !request.objectKey.isEmpty else {
            throw OSSClientError(.invalidArgument, "resumableDownload needs a bucket name and an object key")
        }
        guard request.downloadToFileURL.isFileURL, !request.downloadToFileURL.path.isEmpty else {
            throw OSSClientError(.invalidArgument, "downloadToFileURL must be a file URL")
        }
        guard request.partSize > 0 else {
            throw OSSClientError(.invalidArgument, "partSize must be positive, not \(request.partSize)")
        }
        guard (1...OSSResumableDownloadRequest.maximumThreadNum).contains(request.threadNum) else {
            throw OSSClientError(
                .invalidArgument, "threadNum must be 1...\(OSSResumableDownloadRequest.maximumThreadNum), not \(request.threadNum)")
        }
        switch request.range {
        case nil:
            requestedRange = nil
        case .from(let first) where first >= 0:
            requestedRange = OSSRequestedRange(first: first, last: nil)
        case .closed(let first, let last) where first >= 0 && last >= first:
            requestedRange = OSSRequestedRange(first: first, last: last)
        case .suffix:
            throw OSSClientError(.invalidArgument, "resumableDownload does not support suffix ranges (bytes=-n)")
        case .some(let range):
            throw OSSClientError(.invalidArgument, "invalid range \(range.headerValue)")
        }
        self.client = client
        self.request = request
        partSize = max(request.partSize, OSSResumableDownloadRequest.minimumPartSize)
        threadNum = request.threadNum
        crcMode = (request.crcFlag ?? client.configuration.crcCheckEnabled) ? .enabled : .disabled
        // records: destination, record store, record name and temporary file come from OSSDownloadLocation (base
        // directory aware; the temporary file's name is derived there as before).
        let location = try OSSDownloadLocation(request: request, requestedRange: requestedRange)
        self.location = location
        destinationPath = location.destinationPath
        recordName = location.recordName
        store = location.store
        tempFilePath = location.tempFilePath
        if request.progressGranularity == .bytes, let handler = request.downloadProgress {
            byteProgress = OSSTransferByteProgress(handler: handler)
        } else {
            byteProgress = nil
        }
        // records: the token is checked and resolved against the base directory by the location.
        resumeRecord = try token.map { [requestedRange, crcMode] in
            try location.resumeRecord(
                from: $0, bucket: request.bucketName, key: request.objectKey, requestedRange: requestedRange,
                crcMode: crcMode)
        }
        machine = OSSDownloadStateMachine(
            configuration: .init(
                bucket: request.bucketName, key: request.objectKey, destinationPath: destinationPath,
                tempFilePath: tempFilePath, requestedRange: requestedRange, requestedPartSize: partSize,
                crcMode: crcMode, onObjectChanged: request.objectChangedPolicy == .restartOnce ? .restartOnce : .fail,
                persistsRecord: store != nil))
    }

    func run() async throws -> OSSResumableDownloadResult {
        let object: OSSObjectIdentity
        do {
            object = try await headObject()
        } catch let error as OSSServerError where error.statusCode == 404 {
            // The object is gone: a partial download of it can never complete.
            discardPartialDownload(reason: "the object no longer exists")
            throw error
        } catch where request.cancellation.isPaused {
            // Nothing was started by this call: what an earlier run kept is still there.
            throw OSSClientError.paused("the resumable download was paused before it started", token: nil)
        }
        // The lock keeps a second process off the same record (and temporary file) while this one runs.
        let lock: OSSRecordLock?
        do {
            lock = try store?.lock(name: recordName)
        } catch {
            throw error.downloadClientError
        }
        defer { withExtendedLifetime(lock) {} }
        let loaded: OSSRecordLoadResult<OSSDownloadRecord>
        if let resumeRecord {
            // A token replaces whatever record is on disk (under the lock), or stands in for one in memory.
            do {
                try store?.save(resumeRecord, name: recordName)
            } catch {
                throw error.downloadClientError
            }
            loaded = checkTempFile(of: .loaded(resumeRecord))
        } else {
            loaded = loadRecord()
        }
        let recordedSize: Int64? =
            if case .loaded(let record) = loaded { OSSDownloadTempFileIO.size(path: record.tempFilePath) } else { nil }
        await perform(machine.handle(.start(record: loaded, object: object, recordedTempFileSize: recordedSize)))
        await closeHandle()
        switch outcome {
        case .finished(let crc):
            guard let object = machine.object, let plan = machine.plan else {
                throw OSSClientError(.exceptionCaught, "resumableDownload finished without a plan")
            }
            return OSSResumableDownloadResult(
                fileURL: URL(fileURLWithPath: destinationPath), eTag: object.etag, lastModified: object.lastModified,
                objectSize: object.size, rangeStart: plan.span.start, totalBytes: plan.totalLength, crc64: crc,
                objectCRC64: object.crc64, resumedBytes: machine.resumedBytes, partSize: plan.partSize)
        case .failed(.cancelled):
            throw OSSClientError(.taskCancelled, "the resumable download was cancelled", underlying: cause)
        case .failed(.paused):
            throw OSSClientError.paused(
                "the resumable download was paused; the temporary file and the record were kept",
                token: machine.record.map(location.token(for:)))  // records: relative paths with a base directory
        case .failed(.error(let error)):
            throw error.downloadClientError
        case .failed(.operationFailed), nil:
            throw cause ?? OSSClientError(.exceptionCaught, "resumableDownload stopped without a result")
        }
    }

    // MARK: - Start

    func headObject() async throws -> OSSObjectIdentity {
        let head = try await client.headObject(
            OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: request.objectKey))
        guard let etag = head.eTag, !etag.isEmpty else {
            throw OSSClientError(.exceptionCaught, "HeadObject returned no ETag for \(request.objectKey)")
        }
        return OSSObjectIdentity(
            etag: etag, size: head.contentLength, lastModified: head.headers["last-modified"], crc64: head.crc64)
    }

    // MARK: - Effects

    /// Performs `actions` in order. A failing effect feeds the machine a failure and stops the list (the
    /// machine is finished then, so the rest of the list no longer applies).
    func perform(_ actions: [OSSDownloadStateMachine.Action]) async {
        for action in actions {
            switch action {
            case .prepareTempFile(let path, let length):
                await closeHandle()
                do {
                    try await OSSBlockingIO.run { try OSSDownloadTempFileIO.prepare(path: path, length: length) }
                } catch {
                    await fail(error)
                    return
                }
            case .deleteTempFile(let path):
                await closeHandle()
                if let code = OSSDownloadTempFileIO.remove(path: path) {
                    logger.warning("cannot remove the temporary file", metadata: ["path": "\(path)", "errno": "\(code)"])
                }
            case .writeRecord(let record):
                do {
                    try await writeRecord(record)
                } catch {
                    await fail(error)
                    return
                }
            case .deleteRecord:
                deleteRecord()
            case .discardRecord(let reason):
                logger.warning(
                    "ignoring the download record and starting fresh",
                    metadata: ["reason": "\(reason)", "key": "\(request.objectKey)"])
                deleteRecord()
            case .downloadParts(let etag, let rangeStart, let path, let parts):
                await download(etag: etag, rangeStart: rangeStart, path: path, parts: parts)
            case .headObject:
                byteProgress?.restart()
                let object: OSSObjectIdentity
                do {
                    object = try await headObject()
                } catch {
                    await fail(error)
                    return
                }
                logger.info("the object changed; restarting the download", metadata: ["key": "\(request.objectKey)"])
                await perform(machine.handle(.objectHeaded(object)))
            case .reportProgress(let step, let total, let expected):
                if let byteProgress {
                    byteProgress.confirmed(total: total, expected: expected)
                } else {
                    request.downloadProgress?(step, total, expected)
                }
            case .commitTempFile(let from, let to):
                do {
                    try await commit(from: from, to: to)
                } catch {
                    // The machine is done: clean up by hand; the destination is untouched (rename is atomic).
                    if cause == nil { cause = error }
                    await closeHandle()
                    OSSDownloadTempFileIO.remove(path: from)
                    deleteRecord()
                    outcome = .failed(.operationFailed)
                    return
                }
            case .fail(let failure):
                outcome = .failed(failure)
            case .finish(let crc):
                outcome = .finished(crc64: crc)
            }
        }
    }

    /// Whether the run must stop: the request was cancelled or paused, or the caller's task was cancelled.
    var isStopping: Bool { request.cancellation.isStopped || Task.isCancelled }

    /// What stopping means for the machine: a pause keeps the temporary file (and the record) even without a
    /// record directory; a cancel keeps them only with one.
    var stopEvent: OSSDownloadStateMachine.Event {
        request.cancellation.isPaused ? .paused : .cancelled
    }

    /// Feeds the machine the failure `error` stands for (cancellation, resumable or not) and performs the result.
    func fail(_ error: any Error) async {
        if cause == nil { cause = error }
        if Self.isCancellation(error) || isStopping {
            await perform(machine.handle(stopEvent))
        } else {
            await perform(machine.handle(.failed(resumable: Self.isResumable(error))))
        }
    }

    func writeRecord(_ record: OSSDownloadRecord) async throws {
        guard let store else { return }
        // The parts a record lists must be on disk before the record is.
        if let handle {
            do {
                // Not abandoned on cancellation: the parts that did finish are worth recording.
                // records: F_FULLFSYNC on Darwin (OSSDurableFile), on NIO's thread pool.
                let path = tempFilePath
                try await Self.ignoringCancellation { try await handle.synchronizeDurably(path: path) }
            } catch {
                throw OSSClientError(.fileCantWrite, "cannot sync the temporary file \(tempFilePath)", underlying: error)
            }
        }
        do {
            try await store.saveOffCooperativePool(record, name: recordName)
        } catch {
            throw error.downloadClientError
        }
    }

    func deleteRecord() {
        guard let store else { return }
        do {
            try store.delete(name: recordName)
        } catch {
            logger.warning("cannot remove the download record", metadata: ["error": "\(error)"])
        }
    }

    func commit(from: String, to: String) async throws {
        if handlePath != from {
            await closeHandle()
            try await openHandle(path: from)
        }
        if let handle {
            do {
                // records: F_FULLFSYNC on Darwin (OSSDurableFile), on NIO's thread pool.
                try await Self.ignoringCancellation { try await handle.synchronizeDurably(path: from) }
            } catch {
                throw OSSClientError(.fileCantWrite, "cannot sync the temporary file \(from)", underlying: error)
            }
        }
        await closeHandle()
        // records: durable rename (sync, rename, directory sync) off the cooperative pool.
        try await OSSBlockingIO.run { try OSSDownloadTempFileIO.commit(from: from, to: to) }
    }

    func openHandle(path: String) async throws {
        if handlePath == path, handle != nil { return }
        await closeHandle()
        do {
            handle = try await FileSystem.shared.openFile(
                forWritingAt: FilePath(path), options: .modifyFile(createIfNecessary: false))
            handlePath = path
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot open the temporary file \(path)", underlying: error)
        }
    }

    func closeHandle() async {
        guard let handle else { return }
        self.handle = nil
        handlePath = nil
        do {
            // Closing must happen even when the task is cancelled (a handle dropped unclosed traps).
            try await Self.ignoringCancellation { try await handle.close() }
        } catch {
            logger.warning("cannot close the temporary file", metadata: ["error": "\(error)"])
            if let descriptor = try? handle.detachUnsafeFileDescriptor() {
                OSSDownloadTempFileIO.closeDescriptor(descriptor.rawValue)
            }
        }
    }

    /// Runs `body` in a task that does not inherit the caller's cancellation.
    static func ignoringCancellation<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await body() }.value
    }

    // MARK: - Classification

    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if let error = error as? OSSClientError, error.code == .taskCancelled || error.code == .taskPaused {
            return true
        }
        return false
    }

    /// Failures worth keeping the partial download for: the network and the server's 5xx/429 after retries.
    static func isResumable(_ error: any Error) -> Bool {
        switch error {
        case let error as OSSClientError:
            error.code == .networkError || error.code == .networkingFailWithResponseCode0
        case let error as OSSServerError:
            error.statusCode >= 500 || error.statusCode == 429
        default:
            false
        }
    }

    static func isPreconditionFailed(_ error: any Error) -> Bool {
        (error as? OSSServerError)?.statusCode == 412
    }
}
