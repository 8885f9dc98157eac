import Logging
import OSSResumable

/// The download's effects for the ``OSSTransferDriver``.
extension OSSDownloadEffects: OSSTransferEffects {
    typealias Machine = OSSDownloadStateMachine

    func answer(_ action: Machine.Action, machine: Machine) async throws -> Machine.Event {
        guard case .headObject = action else {
            throw OSSClientError(.exceptionCaught, "the download has no answer to \(action)")
        }
        let object = try await headObject()
        logger.info("the object changed; restarting the download", metadata: ["key": "\(request.objectKey)"])
        return .objectHeaded(object)
    }

    func perform(_ action: Machine.Action) async throws {
        switch action {
        case .prepareTempFile(let path, let length):
            await closeHandle()
            removeJournal()  // a new temporary file: the claims of an earlier one are void
            try await OSSBlockingIO.run { try OSSDownloadTempFileIO.prepare(path: path, length: length) }
        case .deleteTempFile(let path):
            await closeHandle()
            if let code = OSSDownloadTempFileIO.remove(path: path) {
                logger.warning("cannot remove the temporary file", metadata: ["path": "\(path)", "errno": "\(code)"])
            }
        case .commitTempFile(let from, let to):
            do {
                try await commit(from: from, to: to)
            } catch {
                // The machine is done: clean up by hand; the destination is untouched (rename is atomic).
                await closeHandle()
                OSSDownloadTempFileIO.remove(path: from)
                deleteRecord()
                throw error
            }
        default:
            break
        }
    }

    func save(_ record: OSSDownloadRecord) async throws {
        try await Self.save(record, records: records, syncs: syncTracker)
    }

    /// Saves in the background while parts move: checkpoints and finished parts then never wait for a disk sync.
    func backgroundWriter() -> OSSTransferRecordWriter<OSSDownloadRecord>? {
        guard let records else { return nil }
        let syncs = syncTracker
        return OSSTransferRecordWriter(keepsUp: true) { record in
            try await Self.save(record, records: records, syncs: syncs)
        }
    }

    /// Saves the record atomically without waiting for the temporary file's sync: claims the last completed sync
    /// does not cover are listed as unsynced (a resume checks them), and a sync covering them is asked for.
    static func save(
        _ record: OSSDownloadRecord, records: OSSTransferRecordSlot?, syncs: OSSDownloadSyncTracker?
    ) async throws {
        guard let records else { return }
        var record = record
        let claims = record.claims
        record.unsynced = try syncs?.unsynced(claims) ?? []
        do {
            try await records.save(record)
        } catch {
            throw OSSClientError(error, in: .download)
        }
        if !record.unsynced.isEmpty { syncs?.requestSync(covering: claims) }
    }

    func deleteRecord() {
        journal?.close()  // the store removes the file with the record
        records?.delete()
    }

    func discardRecord(reason: OSSResumableError) {
        journal?.close()
        guard let records else { return }
        records.discard(
            OSSRecordNotice(direction: .download, recordPath: records.path, problem: "\(reason)"),
            to: request.recordNotice)
    }

    func partMover(for action: Machine.Action) async throws -> PartMover {
        guard case .downloadParts(let etag, let versionId, let rangeStart, let path, _) = action else {
            throw OSSClientError(.exceptionCaught, "the download moves no parts for \(action)")
        }
        try await openHandle(path: path)
        guard let handle else { throw OSSClientError(.fileCantWrite, "the temporary file \(path) is not open") }
        await openJournal(etag: etag, rangeStart: rangeStart)
        let client = self.client
        let bucket = request.bucketName
        let key = request.objectKey
        let headers = getHeaders
        let journal = self.journal
        return { part, progress, checkpoint in
            let crc = try await Self.fetch(
                client: client, bucket: bucket, key: key, etag: etag, versionId: versionId, part: part, fileOffset: part.offset - rangeStart,
                handle: handle, progress: progress, headers: headers
            ) { bytes, crc in
                // The journal first, from this task: it must not wait for the driver to take the checkpoint in.
                await journal?.append(number: part.number, offset: part.offset, bytes: bytes, crc64: crc)
                checkpoint(.partProgressed(number: part.number, bytes: bytes, crc64: crc))
            }
            await journal?.append(number: part.number, offset: part.offset, bytes: part.length, crc64: crc)
            return .partDownloaded(number: part.number, crc64: crc)
        }
    }

    /// A 412 on `If-Match` is news: the object was replaced (restart once or fail, per the policy). Other
    /// failures keep the partial download unless they are ``OSSErrorDisposition/final``: a retryable one (the
    /// network, 5xx, 429, out of retries) or a transient one (a full volume, a record directory turned read-only,
    /// credentials that ran out or could not be refreshed) keeps the bytes on disk and the last good record, and
    /// the same call resumes once the network, the disk or the credentials are back.
    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event> {
        guard Self.isPreconditionFailed(error) else {
            return .failure(.failed(resumable: OSSErrorDisposition(error) != .final))
        }
        logger.info(
            "the object changed during the download (412 on If-Match)", metadata: ["key": "\(request.objectKey)"])
        return .news(.objectChanged)
    }

    /// A replaced object first, then a failure that is not retryable, then the first.
    func rank(ofPartFailure error: any Error) -> Int {
        Self.isPreconditionFailed(error) ? 2 : OSSErrorDisposition(error) == .retryable ? 0 : 1
    }
}

/// How the ``OSSTransferDriver`` runs a download's actions.
extension OSSDownloadStateMachine: OSSTransferMachine {
    var expectedBytes: Int64 { plan?.totalLength ?? 0 }

    static var cancelledEvent: Event { .cancelled }

    static var pausedEvent: Event { .paused }

    static func step(for action: Action) -> OSSTransferStep<OSSDownloadRecord> {
        switch action {
        // A HEAD again: the object was replaced and the download starts over.
        case .headObject: .ask(restartsProgress: true)
        case .prepareTempFile, .deleteTempFile, .commitTempFile: .perform
        case .writeRecord(let record): .saveRecord(record)
        case .deleteRecord: .deleteRecord
        case .discardRecord(let reason): .discardRecord(reason)
        case .downloadParts(_, _, _, _, let parts): .transferParts(parts)
        case .reportProgress(let step, let total, let expected): .reportProgress(step: step, total: total, expected: expected)
        case .fail(let failure): .stop(failure.end)
        case .finish(let crc): .stop(.finished(crc64: crc))
        }
    }
}
