#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Logging
import OSSResumable

/// One call of `resumableDownload`: checks the request, HEADs the object, takes the record's lock, loads the
/// record, and runs ``OSSDownloadStateMachine`` with the ``OSSTransferDriver``; it is the driver's
/// download effects (`+OSSTransferEffects`): ranged GETs into the temporary file, the record, the commit.
///
/// Owned by a single task (the driver's): the record store and the temporary file handle are only touched from
/// it, so records are written one at a time, in part-completion order. Part GETs run in child tasks that only
/// stream bytes into the file and return the part's CRC-64.
final class OSSDownloadEffects {
    let client: OSSClient
    let request: OSSResumableDownloadRequest
    let destinationPath: String
    let requestedRange: OSSRequestedRange?
    let tempFilePath: String
    /// Part size, `threadNum`, CRC mode.
    let settings: OSSTransferSettings
    /// records: where the destination, temporary file and record are, relative to the request's base directory.
    let location: OSSDownloadLocation
    /// The record of the resume token the call was given, checked against the request.
    let resumeRecord: OSSDownloadRecord?
    /// Progress, confirmed parts or bytes.
    let progress: OSSTransferProgressReporter
    /// Where the record lives; `nil` without a record directory.
    let records: OSSTransferRecordSlot?
    var logger: Logger { client.configuration.logger }

    /// The machine the driver starts with.
    let machine: OSSDownloadStateMachine
    var handle: OSSFile?
    var handlePath: String?
    /// Syncs of the open temporary file, behind its records (``OSSDownloadSyncTracker``).
    var syncTracker: OSSDownloadSyncTracker?
    /// The checkpoint journal of the parts in flight (``OSSDownloadJournalWriter``), while they move.
    var journal: OSSDownloadJournalWriter?
    /// Where the journal's entries go on after those a resume read.
    var journalNextSequence: UInt64 = 0

    init(client: OSSClient, request: OSSResumableDownloadRequest, token: OSSResumeToken? = nil) throws {
        let settings = try OSSTransferSettings(operation: "resumableDownload", request: request, client: client)
        _ = try OSSTrafficLimit.headers(request.trafficLimit)  // parity-b: a precise error for a bad limit
        guard request.downloadToFileURL.isFileURL, !request.downloadToFileURL.path.isEmpty else {
            throw OSSClientError(.invalidArgument, "downloadToFileURL must be a file URL")
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
        self.settings = settings
        let crcMode = settings.crcMode
        // records: destination, record store, record name and temporary file come from OSSDownloadLocation (base
        // directory aware; the temporary file's name is derived there as before).
        let location = try OSSDownloadLocation(request: request, requestedRange: requestedRange)
        self.location = location
        destinationPath = location.destinationPath
        tempFilePath = location.tempFilePath
        records = settings.records(store: location.store, name: location.recordName, noun: "download")
        progress = OSSTransferProgressReporter(handler: request.downloadProgress, granularity: request.progressGranularity)
        // records: the token is checked and resolved against the base directory by the location.
        resumeRecord = try token.map { [requestedRange, crcMode] in
            try location.resumeRecord(
                from: $0, bucket: request.bucketName, key: request.objectKey, requestedRange: requestedRange,
                crcMode: crcMode)
        }
        machine = OSSDownloadStateMachine(
            configuration: .init(
                bucket: request.bucketName, key: request.objectKey, destinationPath: destinationPath,
                tempFilePath: tempFilePath, requestedRange: requestedRange, requestedPartSize: settings.partSize,
                crcMode: crcMode, onObjectChanged: request.objectChangedPolicy == .restartOnce ? .restartOnce : .fail,
                persistsRecord: location.store != nil))
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
        // The lock keeps a second process off the same record (and temporary file) while this one runs. A
        // token replaces whatever record is on disk (under the lock), or stands in for one in memory.
        let opened = try OSSTransferOpenRecord(records, resuming: resumeRecord, map: { OSSClientError($0, in: .download) })
        defer { withExtendedLifetime(opened.lock) {} }
        let loaded = await adoptJournal(verifyUnsynced(checkTempFile(of: opened.loaded)))
        let recordedSize: Int64? =
            if case .loaded(let record) = loaded { OSSDownloadTempFileIO.size(path: record.tempFilePath) } else { nil }
        let driver = OSSTransferDriver(
            machine: machine, effects: self, cancellation: request.cancellation, threadNum: settings.threadNum,
            admission: .streamed(client.scheduler, priority: settings.priority))
        let end = await driver.run(.start(record: loaded, object: object, recordedTempFileSize: recordedSize))
        await closeHandle()
        guard case .finished(let crc) = end else {
            throw driver.error(
                operation: "resumableDownload", noun: "download", kept: "the temporary file and the record",
                token: { driver.machine.record.map(location.token(for:)) },  // records: relative paths with a base directory
                map: { OSSClientError($0, in: .download) })
        }
        guard let object = driver.machine.object, let plan = driver.machine.plan else {
            throw OSSClientError(.exceptionCaught, "resumableDownload finished without a plan")
        }
        return OSSResumableDownloadResult(
            fileURL: URL(fileURLWithPath: destinationPath), eTag: object.etag, lastModified: object.lastModified,
            objectSize: object.size, rangeStart: plan.span.start, totalBytes: plan.totalLength, crc64: crc ?? 0,
            objectCRC64: object.crc64, resumedBytes: driver.machine.resumedBytes, partSize: plan.partSize)
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

    func commit(from: String, to: String) async throws {
        if handlePath != from {
            await closeHandle()
            try await openHandle(path: from)
        }
        if let handle {
            // records: F_FULLFSYNC on Darwin (OSSDurableFile), off the cooperative pool.
            try await Self.ignoringCancellation { try await handle.sync() }
        }
        await closeHandle()
        // records: durable rename (sync, rename, directory sync) off the cooperative pool.
        try await OSSBlockingIO.run { try OSSDownloadTempFileIO.commit(from: from, to: to) }
    }

    func openHandle(path: String) async throws {
        if handlePath == path, handle != nil { return }
        await closeHandle()
        let file = try await OSSFile.open(path, .update(create: false), fault: request.temporaryFileWriteFault)
        handle = file
        handlePath = path
        syncTracker = OSSDownloadSyncTracker(file: file)
    }

    func closeHandle() async {
        journal?.close()
        journal = nil
        guard let handle else { return }
        self.handle = nil
        handlePath = nil
        syncTracker = nil
        if let code = handle.close() {
            logger.warning("cannot close the temporary file", metadata: ["errno": "\(code)"])
        }
    }

    /// Runs `body` in a task that does not inherit the caller's cancellation.
    static func ignoringCancellation<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await body() }.value
    }

    static func isPreconditionFailed(_ error: any Error) -> Bool {
        (error as? OSSServerError)?.statusCode == 412
    }
}
