import Logging
import OSSResumable

/// The upload's effects for the ``OSSTransferDriver``.
extension OSSUploadEffects: OSSTransferEffects {
    typealias Machine = OSSUploadStateMachine

    func answer(_ action: Machine.Action, machine: Machine) async throws -> Machine.Event {
        switch action {
        case .initiateUpload:
            return .initiated(uploadId: try await initiate())
        case .listParts(let uploadId):
            let listed = try await listAllParts(uploadId: uploadId)
            return .listedParts(try await verifyUnrecordedParts(listed, machine: machine))
        case .recheckFile:
            do {
                return .fileRechecked(try OSSFileIdentity.capture(path: filePath))
            } catch {
                throw OSSClientError(error, in: .upload)
            }
        case .complete(let uploadId, let parts, _):
            let result = try await complete(uploadId: uploadId, parts: parts)
            completion = result
            return .completed(serverCRC64: result.crc64)
        case .checkCompletedObject(let size, let crc):
            let adopted = await completedObject(size: size, crc64: crc, uploadId: machine.uploadId ?? "")
            completion = adopted
            return .completedObjectChecked(matches: adopted != nil, serverCRC64: adopted?.crc64)
        default:
            throw OSSClientError(.exceptionCaught, "the upload has no answer to \(action)")
        }
    }

    func perform(_ action: Machine.Action) async throws {
        if case .abortUpload(let uploadId) = action { await abort(uploadId: uploadId) }
    }

    func save(_ record: OSSUploadRecord) async throws {
        try await Self.save(record, records: records, callbackHeaders: callbackHeaders, sequential: sequential)
    }

    /// Saves in the background while parts move, at most ten times a second, so that many small parts do not wait
    /// for a record save each (a part the record misses at a kill is found by the resume's ListParts and verified,
    /// not sent again).
    func backgroundWriter() -> OSSTransferRecordWriter<OSSUploadRecord>? {
        guard let records else { return nil }
        let (headers, sequential) = (callbackHeaders, sequential)
        return OSSTransferRecordWriter(minimumInterval: .milliseconds(100)) { record in
            try await Self.save(record, records: records, callbackHeaders: headers, sequential: sequential)
        }
    }

    /// Saves `record` atomically, with the upload's callback and sequential mark in it (a resumed upload still
    /// sends the callback, and still sends its parts in order).
    static func save(
        _ record: OSSUploadRecord, records: OSSTransferRecordSlot?, callbackHeaders: [String: String]?, sequential: Bool
    ) async throws {
        do {
            try await records?.save(record.withCallbackHeaders(callbackHeaders).withSequential(sequential))
        } catch {
            throw OSSClientError(error, in: .upload)
        }
    }

    func deleteRecord() { records?.delete() }

    func discardRecord(reason: OSSResumableError) {
        guard let records else { return }
        let abandoned = salvage.uploadId(forBucket: request.bucketName, key: request.objectKey)
        records.discard(
            OSSRecordNotice(
                direction: .upload, recordPath: records.path, problem: "\(reason)", abortedUploadId: abandoned),
            to: request.recordNotice)
    }

    func partMover(for action: Machine.Action) async throws -> PartMover {
        guard case .uploadParts(let uploadId, _) = action else {
            throw OSSClientError(.exceptionCaught, "the upload moves no parts for \(action)")
        }
        let client = self.client
        let bucket = request.bucketName
        let key = request.objectKey
        let path = filePath
        let integrity = partIntegrity
        let headers = partHeaders
        return { part, progress, _ in
            try await Self.send(
                client: client, bucket: bucket, key: key, uploadId: uploadId, part: part, path: path,
                integrity: integrity, progress: progress, headers: headers)
        }
    }

    /// NoSuchUpload (at ListParts, UploadPart or Complete) is news: the machine starts a new upload or checks
    /// whether a lost Complete made the object.
    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event> {
        guard Self.isNoSuchUpload(error) else { return .failure(.failed) }
        logger.info("the multipart upload is gone", metadata: ["key": "\(request.objectKey)"])
        return .news(.uploadNotFound)
    }

    func rank(ofPartFailure error: any Error) -> Int { Self.isNoSuchUpload(error) ? 1 : 0 }

    static func isNoSuchUpload(_ error: any Error) -> Bool {
        (error as? OSSServerError)?.code == "NoSuchUpload"
    }
}

/// How the ``OSSTransferDriver`` runs an upload's actions.
extension OSSUploadStateMachine: OSSTransferMachine {
    var expectedBytes: Int64 { totalBytes }

    static var cancelledEvent: Event { .cancelled }

    static var pausedEvent: Event { .paused }

    static func step(for action: Action) -> OSSTransferStep<OSSUploadRecord> {
        switch action {
        case .initiateUpload: .ask(restartsProgress: true)
        case .listParts, .recheckFile, .complete, .checkCompletedObject: .ask(restartsProgress: false)
        case .abortUpload: .perform
        case .writeRecord(let record): .saveRecord(record)
        case .deleteRecord: .deleteRecord
        case .discardRecord(let reason): .discardRecord(reason)
        case .uploadParts(_, let parts): .transferParts(parts)
        case .reportProgress(let step, let total, let expected): .reportProgress(step: step, total: total, expected: expected)
        case .fail(let failure): .stop(failure.end)
        case .finish(let crc): .stop(.finished(crc64: crc))
        }
    }
}
