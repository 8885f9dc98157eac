import OSSCRC64

/// The decisions of a resumable multipart upload, with no I/O: feed it ``Event``s, perform the ``Action``s it
/// returns, in order.
///
/// The flow: ``Event/start(record:file:salvage:)`` → either `initiateUpload` (no, unusable or foreign record; the
/// upload an unusable record still names is aborted first), or
/// `listParts` (a usable record for an unchanged file), or abort + delete record + fail with `fileChanged`
/// (the file changed since the record). The ListParts answer is reconciled with the record — the server is the
/// truth, see ``reconcile(plan:recorded:server:crcMode:)`` — and the missing parts are requested with
/// `uploadParts`. Every confirmed part yields `writeRecord` and `reportProgress`. When all parts are confirmed
/// the file is re-checked (`recheckFile`), then `complete`; the answer's CRC-64 is checked against the parts'
/// combined CRC (reused parts included).
///
/// Failures: cancel aborts and deletes the record when `deleteUploadIdOnCancelling` is set, and keeps both
/// otherwise; pause (``Event/paused``) always keeps the upload id and the record; any other failure keeps the
/// record (so the next call resumes), or, without a record, aborts when `deleteUploadIdOnCancelling` is set. `NoSuchUpload` starts a new upload (at most
/// ``Configuration/maximumUploadRestarts`` times). Once the machine has emitted `fail` or `finish`, it ignores
/// every further event.
package struct OSSUploadStateMachine: Sendable {
    enum Phase: Sendable, Hashable {
        case idle, initiating, listing, uploading, recheckingFile, completing, checkingCompletedObject, done
    }

    package let configuration: Configuration
    var phase: Phase = .idle
    /// The identity of the file the upload belongs to.
    package private(set) var fileIdentity: OSSFileIdentity?
    package private(set) var plan: OSSPartPlan?
    package private(set) var uploadId: String?
    var confirmed: [Int: OSSUploadRecord.ConfirmedPart] = [:]
    package private(set) var recordedParts: [OSSUploadRecord.ConfirmedPart] = []
    var outstanding: Set<Int> = []
    var attempts: [Int: Int] = [:]
    var restarts = 0
    /// The highest total reported so far: progress never goes backwards, even after a restart.
    package private(set) var reportedBytes: Int64 = 0
    /// The bytes already on the server when the upload resumed (reused parts).
    package internal(set) var resumedBytes: Int64 = 0

    package init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Whether the machine has emitted `fail` or `finish`.
    package var isFinished: Bool { phase == .done }

    /// The bytes confirmed by the server so far (reused parts included).
    package var confirmedBytes: Int64 { confirmed.values.reduce(0) { $0 + $1.size } }

    /// The total bytes to upload, once planned.
    package var totalBytes: Int64 { plan?.totalLength ?? 0 }

    /// The record describing the current state, once an upload id exists. While a loaded record is being
    /// reconciled with ListParts, its parts are still the ones it recorded.
    package var record: OSSUploadRecord? {
        guard let uploadId, let plan, let fileIdentity else { return nil }
        let parts = phase == .listing ? recordedParts : confirmed.values.sorted { $0.number < $1.number }
        return OSSUploadRecord(
            bucket: configuration.bucket,
            key: configuration.key,
            filePath: configuration.filePath,
            fileIdentity: fileIdentity,
            requestedPartSize: configuration.requestedPartSize,
            partSize: plan.partSize,
            crcMode: configuration.crcMode,
            uploadId: uploadId,
            parts: parts
        )
    }

    /// Feeds one event and returns the actions to perform, in order.
    package mutating func handle(_ event: Event) -> [Action] {
        if phase == .done { return [] }
        switch event {
        case .cancelled:
            return cancel()
        case .paused:
            // Whatever deleteUploadIdOnCancelling says: the upload id and the record stay for a resume. Paused
            // before ListParts answered, the state to hand back is still the loaded record's.
            if phase == .listing {
                confirmed = Dictionary(recordedParts.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
            }
            phase = .done
            return [.fail(.paused)]
        case .failed:
            return failKeepingRecord(.operationFailed)
        case .start(let record, let file, let salvage):
            guard phase == .idle else { return invalid("start twice") }
            return start(record: record, file: file, salvage: salvage)
        case .initiated(let id):
            guard phase == .initiating else { return invalid("initiated while \(phase)") }
            return initiated(uploadId: id)
        case .listedParts(let parts):
            guard phase == .listing else { return invalid("listed parts while \(phase)") }
            return listed(parts)
        case .uploadNotFound:
            guard phase == .listing || phase == .uploading || phase == .completing || phase == .recheckingFile else {
                return invalid("NoSuchUpload while \(phase)")
            }
            // Gone after Complete was sent (here, or by a run that died before its answer): maybe completed.
            if let check = checkCompletedObject() { return check }
            return uploadVanished()
        case .completedObjectChecked(let matches, let serverCRC):
            guard phase == .checkingCompletedObject else { return invalid("completed object checked while \(phase)") }
            return completedObjectChecked(matches: matches, serverCRC64: serverCRC)
        case .partUploaded(let id, let number, let etag, let localCRC, let serverCRC):
            // Late answers for an abandoned upload id, or duplicates, change nothing.
            guard phase == .uploading, id == uploadId, outstanding.contains(number) else { return [] }
            return partUploaded(number: number, etag: etag, localCRC: localCRC, serverCRC: serverCRC)
        case .fileRechecked(let identity):
            guard phase == .recheckingFile else { return invalid("file rechecked while \(phase)") }
            return fileRechecked(identity)
        case .completed(let serverCRC):
            guard phase == .completing else { return invalid("completed while \(phase)") }
            return completed(serverCRC: serverCRC)
        }
    }

    // MARK: - Steps

    private mutating func start(
        record: OSSRecordLoadResult<OSSUploadRecord>, file: OSSFileIdentity, salvage: OSSRecordSalvage
    ) -> [Action] {
        fileIdentity = file
        do {
            plan = try OSSPartPlan.upload(fileSize: file.size, preferredPartSize: configuration.requestedPartSize)
        } catch {
            phase = .done
            return [.fail(.error(error))]
        }
        switch record {
        case .none:
            phase = .initiating
            return [.initiateUpload]
        case .unusable(let reason):
            phase = .initiating
            // The upload a damaged record still names is aborted, never left behind (billed, unlisted anywhere).
            if let abandoned = salvage.uploadId(forBucket: configuration.bucket, key: configuration.key) {
                return [.discardRecord(reason: reason), .abortUpload(uploadId: abandoned), .initiateUpload]
            }
            return [.discardRecord(reason: reason), .initiateUpload]
        case .loaded(let stored):
            if let mismatch = foreignReason(stored) {
                phase = .initiating
                return [.discardRecord(reason: .recordForeign(mismatch)), .initiateUpload]
            }
            let changes = file.changes(from: stored.fileIdentity)
            if !changes.isEmpty {
                phase = .done
                var actions: [Action] = [.abortUpload(uploadId: stored.uploadId)]
                if configuration.persistsRecord { actions.append(.deleteRecord) }
                actions.append(.fail(.error(.fileChanged(changes))))
                return actions
            }
            do {
                plan = try OSSPartPlan(span: .whole(size: file.size), recordedPartSize: stored.partSize, limits: .upload)
            } catch {
                phase = .initiating
                return [.discardRecord(reason: .recordCorrupt("\(error)")), .initiateUpload]
            }
            uploadId = stored.uploadId
            recordedParts = stored.parts
            phase = .listing
            return [.listParts(uploadId: stored.uploadId)]
        }
    }

    private func foreignReason(_ stored: OSSUploadRecord) -> String? {
        if stored.bucket != configuration.bucket || stored.key != configuration.key {
            return "record is for oss://\(stored.bucket)/\(stored.key)"
        }
        if stored.filePath != configuration.filePath { return "record is for file \(stored.filePath)" }
        if stored.requestedPartSize != configuration.requestedPartSize {
            return "record has part size \(stored.requestedPartSize)"
        }
        if stored.crcMode != configuration.crcMode { return "record has CRC mode \(stored.crcMode.rawValue)" }
        return nil
    }

    private mutating func initiated(uploadId id: String) -> [Action] {
        guard let plan, !id.isEmpty else { return invalid("empty upload id") }
        uploadId = id
        confirmed = [:]
        attempts = [:]
        let parts = plan.parts
        outstanding = Set(parts.map(\.number))
        phase = .uploading
        var actions: [Action] = []
        if configuration.persistsRecord, let record { actions.append(.writeRecord(record)) }
        actions.append(.uploadParts(uploadId: id, parts: parts))
        return actions
    }

    private mutating func listed(_ serverParts: [ServerPart]) -> [Action] {
        guard let plan, let uploadId else { return invalid("listed parts without an upload") }
        let result = OSSUploadStateMachine.reconcile(
            plan: plan,
            recorded: recordedParts,
            server: serverParts,
            crcMode: configuration.crcMode
        )
        confirmed = Dictionary(uniqueKeysWithValues: result.reused.map { ($0.number, $0) })
        outstanding = Set(result.resend.map(\.number))
        resumedBytes = confirmedBytes
        phase = .uploading
        var actions: [Action] = []
        if configuration.persistsRecord, let record { actions.append(.writeRecord(record)) }
        actions += progressActions()
        if result.resend.isEmpty {
            phase = .recheckingFile
            actions.append(.recheckFile)
        } else {
            actions.append(.uploadParts(uploadId: uploadId, parts: result.resend))
        }
        return actions
    }

    mutating func uploadVanished() -> [Action] {
        let vanished = uploadId ?? ""
        guard restarts < configuration.maximumUploadRestarts else {
            // Nothing left on the server to resume: the record is useless.
            phase = .done
            var actions: [Action] = []
            if configuration.persistsRecord { actions.append(.deleteRecord) }
            actions.append(.fail(.error(.uploadNotFound(uploadId: vanished))))
            return actions
        }
        restarts += 1
        uploadId = nil
        confirmed = [:]
        recordedParts = []
        outstanding = []
        resumedBytes = 0
        phase = .initiating
        var actions: [Action] = []
        if configuration.persistsRecord { actions.append(.deleteRecord) }
        actions.append(.initiateUpload)
        return actions
    }

    private mutating func partUploaded(number: Int, etag: String, localCRC: UInt64?, serverCRC: UInt64?) -> [Action] {
        guard let plan, let uploadId, let part = plan.part(number: number) else { return invalid("unknown part \(number)") }
        if configuration.crcMode == .enabled, let localCRC, let serverCRC, localCRC != serverCRC {
            let tries = (attempts[number] ?? 1) + 1
            attempts[number] = tries
            guard tries <= configuration.maximumPartAttempts else {
                return failKeepingRecord(.error(.partCRCMismatch(partNumber: number, expected: localCRC, actual: serverCRC)))
            }
            return [.uploadParts(uploadId: uploadId, parts: [part])]
        }
        outstanding.remove(number)
        confirmed[number] = OSSUploadRecord.ConfirmedPart(
            number: number,
            size: part.length,
            crc64: localCRC ?? serverCRC,
            etag: etag
        )
        var actions: [Action] = []
        if configuration.persistsRecord, let record { actions.append(.writeRecord(record)) }
        actions += progressActions()
        if outstanding.isEmpty {
            phase = .recheckingFile
            actions.append(.recheckFile)
        }
        return actions
    }

    private mutating func fileRechecked(_ identity: OSSFileIdentity) -> [Action] {
        guard let fileIdentity, let uploadId else { return invalid("recheck without an upload") }
        let changes = identity.changes(from: fileIdentity)
        if !changes.isEmpty {
            phase = .done
            var actions: [Action] = [.abortUpload(uploadId: uploadId)]
            if configuration.persistsRecord { actions.append(.deleteRecord) }
            actions.append(.fail(.error(.fileChanged(changes))))
            return actions
        }
        phase = .completing
        let sorted = confirmed.values.sorted { $0.number < $1.number }
        return [
            .complete(
                uploadId: uploadId,
                parts: sorted.map { CompletePart(number: $0.number, etag: $0.etag) },
                expectedCRC64: expectedCRC64
            )
        ]
    }

    /// The CRC-64 of the whole object combined from the parts, when every part's CRC is known.
    package var expectedCRC64: UInt64? {
        var pieces: [(crc: UInt64, length: UInt64)] = []
        for part in confirmed.values.sorted(by: { $0.number < $1.number }) {
            guard let crc = part.crc64 else { return nil }
            pieces.append((crc, UInt64(part.size)))
        }
        return CRC64.combine(parts: pieces)
    }

    mutating func completed(serverCRC: UInt64?) -> [Action] {
        phase = .done
        var actions: [Action] = []
        if configuration.persistsRecord { actions.append(.deleteRecord) }
        let expected = expectedCRC64
        if configuration.crcMode == .enabled, let expected, let serverCRC, expected != serverCRC {
            actions.append(.fail(.error(.crcMismatch(expected: expected, actual: serverCRC))))
            return actions
        }
        actions.append(.finish(crc64: serverCRC ?? expected))
        return actions
    }

    private mutating func cancel() -> [Action] {
        phase = .done
        guard let uploadId, configuration.deleteUploadIdOnCancelling else { return [.fail(.cancelled)] }
        var actions: [Action] = [.abortUpload(uploadId: uploadId)]
        if configuration.persistsRecord { actions.append(.deleteRecord) }
        actions.append(.fail(.cancelled))
        return actions
    }

    /// A failure that is not a cancel: keep the record for a later resume; without one, abort per the flag.
    private mutating func failKeepingRecord(_ failure: Failure) -> [Action] {
        phase = .done
        if !configuration.persistsRecord, configuration.deleteUploadIdOnCancelling, let uploadId {
            return [.abortUpload(uploadId: uploadId), .fail(failure)]
        }
        return [.fail(failure)]
    }

    mutating func progressActions() -> [Action] {
        let total = confirmedBytes
        guard total > reportedBytes else {
            // After a restart, confirmed bytes climb back up from zero; stay silent until they pass the mark.
            return []
        }
        let step = total - reportedBytes
        reportedBytes = total
        return [.reportProgress(bytesSent: step, totalBytesSent: total, totalBytesExpected: totalBytes)]
    }

    private mutating func invalid(_ message: String) -> [Action] {
        phase = .done
        return [.fail(.error(.invalidState(message)))]
    }
}
