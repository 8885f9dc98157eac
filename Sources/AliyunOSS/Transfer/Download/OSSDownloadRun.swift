#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import OSSResumable

/// One call of `resumableDownload`, set up and run. `init` checks the request (settings, URL, range, traffic
/// limit, resume token) and plans the state machine and the download's effects; ``run()`` HEADs the object,
/// takes the record's lock, loads the record, and hands the machine and the effects to an ``OSSTransferDriver``,
/// then turns how it ended into the result or the error.
///
/// The dependency runs one way: the run builds the effects and the driver; the effects never see either.
struct OSSDownloadRun {
    let request: OSSResumableDownloadRequest
    /// records: where the destination, temporary file and record are, relative to the request's base directory.
    let location: OSSDownloadLocation
    /// The record of the resume token the call was given, checked against the request.
    let resumeRecord: OSSDownloadRecord?
    /// Part size, `threadNum`, CRC mode.
    let settings: OSSTransferSettings
    /// The machine the driver starts with.
    let machine: OSSDownloadStateMachine
    /// The download's I/O.
    let effects: OSSDownloadEffects
    let scheduler: OSSTransferScheduler

    init(client: OSSClient, request: OSSResumableDownloadRequest, token: OSSResumeToken? = nil) throws {
        let settings = try OSSTransferSettings(operation: "resumableDownload", request: request, client: client)
        _ = try OSSTrafficLimit.headers(request.trafficLimit)  // a precise error for a bad limit
        guard request.downloadToFileURL.isFileURL, !request.downloadToFileURL.path.isEmpty else {
            throw OSSClientError(.invalidArgument, "downloadToFileURL must be a file URL")
        }
        let requestedRange: OSSRequestedRange?
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
        self.request = request
        self.settings = settings
        scheduler = client.scheduler
        let crcMode = settings.crcMode
        // records: destination, record store, record name and temporary file come from OSSDownloadLocation (base
        // directory aware; the temporary file's name is derived there as before).
        let location = try OSSDownloadLocation(request: request, requestedRange: requestedRange)
        self.location = location
        // records: the token is checked and resolved against the base directory by the location.
        resumeRecord = try token.map { [requestedRange, crcMode] in
            try location.resumeRecord(
                from: $0, bucket: request.bucketName, key: request.objectKey, requestedRange: requestedRange,
                crcMode: crcMode)
        }
        machine = OSSDownloadStateMachine(
            configuration: .init(
                bucket: request.bucketName, key: request.objectKey, destinationPath: location.destinationPath,
                tempFilePath: location.tempFilePath, requestedRange: requestedRange,
                requestedPartSize: settings.partSize, crcMode: crcMode,
                onObjectChanged: request.objectChangedPolicy == .restartOnce ? .restartOnce : .fail,
                persistsRecord: location.store != nil, versionId: request.versionId))
        effects = OSSDownloadEffects(
            client: client, request: request, destinationPath: location.destinationPath,
            tempFilePath: location.tempFilePath,
            records: settings.records(store: location.store, name: location.recordName, noun: "download"),
            resumesFromToken: resumeRecord != nil)
    }

    func run() async throws -> OSSResumableDownloadResult {
        var object: OSSObjectIdentity
        do {
            object = try await effects.headObject()
        } catch let error as OSSServerError where error.statusCode == 404 {
            // The key is gone (or its current version is a delete marker). A partial download pinned to a version
            // that is still there goes on with it; any other can never complete.
            guard case .loaded(let record) = effects.loadRecord(), let recorded = try await recordedVersion(of: record)
            else {
                effects.discardPartialDownload(reason: "the object no longer exists")
                throw error
            }
            object = recorded
        } catch where request.cancellation.isPaused {
            // Nothing was started by this call: what an earlier run kept is still there.
            throw OSSClientError.paused("the resumable download was paused before it started", token: nil)
        }
        // The lock keeps a second process off the same record (and temporary file) while this one runs. A
        // token replaces whatever record is on disk (under the lock), or stands in for one in memory.
        let opened = try OSSTransferOpenRecord(
            effects.records, resuming: resumeRecord, map: { OSSClientError($0, in: .download) })
        defer { withExtendedLifetime(opened.lock) {} }
        let loaded = await effects.adoptJournal(effects.verifyUnsynced(effects.checkTempFile(of: opened.loaded)))
        let recordedSize: Int64? =
            if case .loaded(let record) = loaded { OSSDownloadTempFileIO.size(path: record.tempFilePath) } else { nil }
        // Pinned: a record of another version than the current one resumes with its own version while it exists.
        var newerVersionId: String?
        if case .loaded(let record) = loaded, record.object.versionId != object.versionId,
            let recorded = try await recordedVersion(of: record)
        {
            newerVersionId = object.versionId
            object = recorded
            effects.logger.notice(
                "resuming the version the download began with; the key has a newer version",
                metadata: [
                    "key": "\(request.objectKey)", "versionId": "\(recorded.versionId ?? "")",
                    "newerVersionId": "\(newerVersionId ?? "")",
                ])
        }
        let driver = OSSTransferDriver(
            machine: machine, effects: effects, cancellation: request.cancellation, threadNum: settings.threadNum,
            admission: .streamed(scheduler, priority: settings.priority))
        let end = await driver.run(.start(record: loaded, object: object, recordedTempFileSize: recordedSize))
        await effects.closeHandle()
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
            fileURL: URL(fileURLWithPath: location.destinationPath), eTag: object.etag,
            lastModified: object.lastModified, objectSize: object.size, rangeStart: plan.span.start,
            totalBytes: plan.totalLength, crc64: crc ?? 0, objectCRC64: object.crc64,
            resumedBytes: driver.machine.resumedBytes, partSize: plan.partSize, versionId: object.versionId,
            newerVersionId: object.versionId == newerVersionId ? nil : newerVersionId)
    }

    /// The version `record` was pinned to, as HEAD sees it now; `nil` when the record has no version, the caller
    /// named a version (the record must then be of it), or that version is gone.
    private func recordedVersion(of record: OSSDownloadRecord) async throws -> OSSObjectIdentity? {
        guard request.versionId == nil, let pinned = record.object.versionId else { return nil }
        do {
            return try await effects.headObject(versionId: pinned)
        } catch let error as OSSServerError where error.statusCode == 404 {
            return nil
        }
    }
}
