import OSSCRC64

/// The decisions of a resumable, parallel ranged download, with no I/O.
///
/// Start with the HEAD result and the loaded record. A usable record for the same object (ETag, size,
/// Last-Modified) whose temporary file still has the expected size resumes with the missing parts; a changed
/// object, a missing or resized temporary file, or an unusable record starts over (or fails with
/// `objectChanged`, per ``ObjectChangedPolicy``). Each finished part updates the record. When all parts are in,
/// the combined CRC-64 is checked against the object's (whole-object downloads in CRC mode), and the temporary file
/// is committed over the destination. A 412 mid-download (the object was replaced) restarts once or fails, per
/// the policy; the file never mixes two versions because every GET carries `If-Match`.
///
/// Byte-granular resume: a part in flight reports checkpoints (``Event/partProgressed(number:bytes:crc64:)``), each
/// recorded as the part's written prefix with its CRC-64 (``OSSDownloadRecord/PartialPart``). A resume fetches
/// such a part from its first missing byte and combines the prefix's CRC with the rest's.
package struct OSSDownloadStateMachine: Sendable {
    enum Phase: Sendable, Hashable { case idle, downloading, heading, done }

    package let configuration: Configuration
    var phase: Phase = .idle
    package private(set) var object: OSSObjectIdentity?
    package private(set) var plan: OSSPartPlan?
    package private(set) var tempFilePath: String
    var completed: [Int: OSSDownloadRecord.CompletedPart] = [:]
    /// The written prefix of parts in flight, as far as checkpoints (or the loaded record) say.
    var partial: [Int: OSSDownloadRecord.PartialPart] = [:]
    /// For each part being fetched: the prefix written before its fetch started (the fetch's bytes and CRC
    /// follow it).
    var bases: [Int: OSSDownloadRecord.PartialPart] = [:]
    var outstanding: Set<Int> = []
    var restarts = 0
    package private(set) var reportedBytes: Int64 = 0
    package private(set) var resumedBytes: Int64 = 0

    package init(configuration: Configuration) {
        self.configuration = configuration
        self.tempFilePath = configuration.tempFilePath
    }

    package var isFinished: Bool { phase == .done }

    /// The bytes of the completed parts plus the prefixes the parts being fetched started from.
    package var receivedBytes: Int64 {
        completed.values.reduce(0) { $0 + $1.length } + bases.values.reduce(0) { $0 + $1.bytes }
    }

    /// The record for the current state, once planned.
    package var record: OSSDownloadRecord? {
        guard let object, let plan else { return nil }
        return OSSDownloadRecord(
            bucket: configuration.bucket,
            key: configuration.key,
            object: object,
            range: plan.span,
            requestedRange: configuration.requestedRange,
            partSize: plan.partSize,
            crcMode: configuration.crcMode,
            destinationPath: configuration.destinationPath,
            tempFilePath: tempFilePath,
            parts: completed.values.sorted { $0.number < $1.number },
            partials: partial.values.filter { completed[$0.number] == nil }.sorted { $0.number < $1.number }
        )
    }

    /// Feeds one event and returns the actions to perform, in order.
    package mutating func handle(_ event: Event) -> [Action] {
        if phase == .done { return [] }
        switch event {
        case .start(let record, let object, let tempSize):
            guard phase == .idle else { return invalid("start twice") }
            return start(record: record, object: object, recordedTempFileSize: tempSize)
        case .partDownloaded(let number, let crc):
            guard phase == .downloading, outstanding.contains(number) else { return [] }
            return partDownloaded(number: number, crc: crc)
        case .partProgressed(let number, let bytes, let crc):
            guard phase == .downloading, outstanding.contains(number) else { return [] }
            return partProgressed(number: number, bytes: bytes, crc: crc)
        case .objectChanged:
            guard phase == .downloading else { return [] }
            return objectChangedMidway()
        case .objectHeaded(let object):
            guard phase == .heading else { return invalid("HEAD answer while \(phase)") }
            return fresh(object: object, prefix: [])
        case .failed(let resumable):
            phase = .done
            if resumable && configuration.persistsRecord { return [.fail(.operationFailed)] }
            var actions: [Action] = [.deleteTempFile(path: tempFilePath)]
            if configuration.persistsRecord { actions.append(.deleteRecord) }
            actions.append(.fail(.operationFailed))
            return actions
        case .cancelled:
            phase = .done
            if configuration.persistsRecord { return [.fail(.cancelled)] }
            return [.deleteTempFile(path: tempFilePath), .fail(.cancelled)]
        case .paused:
            // The temporary file is kept even without a record: the pause hands back a token naming it.
            phase = .done
            return [.fail(.paused)]
        }
    }

    private mutating func start(
        record: OSSRecordLoadResult<OSSDownloadRecord>,
        object: OSSObjectIdentity,
        recordedTempFileSize: Int64?
    ) -> [Action] {
        switch record {
        case .none:
            return fresh(object: object, prefix: [])
        case .unusable(let reason):
            return fresh(object: object, prefix: [.discardRecord(reason: reason)])
        case .loaded(let stored):
            if let reason = foreignReason(stored) {
                return fresh(object: object, prefix: [.discardRecord(reason: .recordForeign(reason))])
            }
            let differences = object.differences(from: stored.object)
            if !differences.isEmpty {
                let error = OSSResumableError.objectChanged(differences.joined(separator: ", "))
                let cleanup: [Action] = [.discardRecord(reason: error), .deleteTempFile(path: stored.tempFilePath)]
                if configuration.onObjectChanged == .fail {
                    phase = .done
                    return cleanup + [.fail(.error(error))]
                }
                restarts += 1
                return fresh(object: object, prefix: cleanup)
            }
            guard let size = recordedTempFileSize, size == stored.range.length else {
                let reason = OSSResumableError.tempFileAltered(
                    recordedTempFileSize == nil ? "\(stored.tempFilePath) is missing" : "\(stored.tempFilePath) has the wrong size")
                return fresh(object: object, prefix: [.discardRecord(reason: reason), .deleteTempFile(path: stored.tempFilePath)])
            }
            let resumedPlan: OSSPartPlan
            do {
                resumedPlan = try OSSPartPlan(span: stored.range, recordedPartSize: stored.partSize, limits: .download)
            } catch {
                return fresh(object: object, prefix: [.discardRecord(reason: .recordCorrupt("\(error)")), .deleteTempFile(path: stored.tempFilePath)])
            }
            self.object = object
            self.plan = resumedPlan
            self.tempFilePath = stored.tempFilePath
            completed = [:]
            for part in stored.parts where resumedPlan.part(number: part.number) == OSSPart(number: part.number, offset: part.offset, length: part.length) {
                completed[part.number] = part
            }
            partial = [:]
            for prefix in stored.partials where completed[prefix.number] == nil {
                guard let planned = resumedPlan.part(number: prefix.number), planned.offset == prefix.offset,
                    prefix.bytes > 0, prefix.bytes < planned.length
                else { continue }
                partial[prefix.number] = prefix
            }
            let missing = resumedPlan.parts.filter { completed[$0.number] == nil }
            outstanding = Set(missing.map(\.number))
            bases = partial
            resumedBytes = receivedBytes
            phase = .downloading
            var actions = progressActions()
            actions += missing.isEmpty ? finishing() : [download(missing)]
            return actions
        }
    }

    private func foreignReason(_ stored: OSSDownloadRecord) -> String? {
        if stored.bucket != configuration.bucket || stored.key != configuration.key {
            return "record is for oss://\(stored.bucket)/\(stored.key)"
        }
        if stored.destinationPath != configuration.destinationPath { return "record is for \(stored.destinationPath)" }
        if stored.requestedRange != configuration.requestedRange { return "record is for another range" }
        if stored.crcMode != configuration.crcMode { return "record has CRC mode \(stored.crcMode.rawValue)" }
        if let wanted = configuration.versionId, stored.object.versionId != wanted {
            return "record is for version \(stored.object.versionId ?? "none"), not \(wanted)"
        }
        return nil
    }

    private mutating func fresh(object: OSSObjectIdentity, prefix: [Action]) -> [Action] {
        let range: OSSByteRange
        let newPlan: OSSPartPlan
        do {
            range = try OSSByteRange.resolve(
                first: configuration.requestedRange?.first ?? 0,
                last: configuration.requestedRange?.last,
                objectSize: object.size
            )
            newPlan = try OSSPartPlan.download(range: range, preferredPartSize: configuration.requestedPartSize)
        } catch {
            phase = .done
            return prefix + [.fail(.error(error))]
        }
        self.object = object
        self.plan = newPlan
        self.tempFilePath = configuration.tempFilePath
        completed = [:]
        partial = [:]
        bases = [:]
        outstanding = Set(newPlan.parts.map(\.number))
        resumedBytes = 0
        phase = .downloading
        var actions = prefix
        actions.append(.prepareTempFile(path: tempFilePath, length: range.length))
        if configuration.persistsRecord, let record { actions.append(.writeRecord(record)) }
        actions += outstanding.isEmpty ? finishing() : [download(newPlan.parts)]
        return actions
    }

    /// Fetches `parts`, each from its first missing byte (the prefixes in ``bases``).
    private func download(_ parts: [OSSPart]) -> Action {
        let remainders = parts.map { part in
            guard let base = bases[part.number] else { return part }
            return OSSPart(number: part.number, offset: part.offset + base.bytes, length: part.length - base.bytes)
        }
        return .downloadParts(
            etag: object?.etag ?? "", versionId: object?.versionId, rangeStart: plan?.span.start ?? 0, tempFilePath: tempFilePath, parts: remainders)
    }

    private mutating func partDownloaded(number: Int, crc: UInt64) -> [Action] {
        guard let plan, let part = plan.part(number: number) else { return invalid("unknown part \(number)") }
        outstanding.remove(number)
        let base = bases.removeValue(forKey: number)
        partial[number] = nil
        let whole = base.map { CRC64.combine($0.crc64, crc, length2: UInt64(part.length - $0.bytes)) } ?? crc
        completed[number] = OSSDownloadRecord.CompletedPart(number: number, offset: part.offset, length: part.length, crc64: whole)
        var actions: [Action] = []
        if configuration.persistsRecord, let record { actions.append(.writeRecord(record)) }
        actions += progressActions()
        if outstanding.isEmpty { actions += finishing() }
        return actions
    }

    /// A checkpoint: the part's prefix up to `bytes` past its fetch's start is written. Recorded when it grows the
    /// prefix and leaves some of the part to fetch (the part's end comes as ``Event/partDownloaded(number:crc64:)``).
    private mutating func partProgressed(number: Int, bytes: Int64, crc: UInt64) -> [Action] {
        guard let part = plan?.part(number: number), bytes > 0 else { return [] }
        let base = bases[number]
        let written = (base?.bytes ?? 0) + bytes
        guard written < part.length, written > partial[number]?.bytes ?? 0 else { return [] }
        let prefixCRC = base.map { CRC64.combine($0.crc64, crc, length2: UInt64(bytes)) } ?? crc
        partial[number] = OSSDownloadRecord.PartialPart(number: number, offset: part.offset, bytes: written, crc64: prefixCRC)
        guard configuration.persistsRecord, let record else { return [] }
        return [.writeRecord(record)]
    }

    /// The combined CRC-64 of the completed parts in order.
    package var combinedCRC64: UInt64 {
        CRC64.combine(parts: completed.values.sorted { $0.number < $1.number }.map { ($0.crc64, UInt64($0.length)) })
    }

    private mutating func finishing() -> [Action] {
        phase = .done
        let crc = combinedCRC64
        let whole = plan.map { $0.span.start == 0 && $0.span.length == object?.size } ?? false
        if configuration.crcMode == .enabled, whole, let expected = object?.crc64, expected != crc {
            var actions: [Action] = [.deleteTempFile(path: tempFilePath)]
            if configuration.persistsRecord { actions.append(.deleteRecord) }
            actions.append(.fail(.error(.crcMismatch(expected: expected, actual: crc))))
            return actions
        }
        var actions: [Action] = [.commitTempFile(from: tempFilePath, to: configuration.destinationPath)]
        if configuration.persistsRecord { actions.append(.deleteRecord) }
        actions.append(.finish(crc64: crc))
        return actions
    }

    private mutating func objectChangedMidway() -> [Action] {
        var actions: [Action] = [.deleteTempFile(path: tempFilePath)]
        if configuration.persistsRecord { actions.append(.deleteRecord) }
        if configuration.onObjectChanged == .restartOnce && restarts < 1 {
            restarts += 1
            completed = [:]
            partial = [:]
            bases = [:]
            outstanding = []
            phase = .heading
            actions.append(.headObject)
            return actions
        }
        phase = .done
        actions.append(.fail(.error(.objectChanged("the object was replaced during the download (412 on If-Match)"))))
        return actions
    }

    private mutating func progressActions() -> [Action] {
        let total = receivedBytes
        guard total > reportedBytes else { return [] }
        let step = total - reportedBytes
        reportedBytes = total
        return [.reportProgress(bytesReceived: step, totalBytesReceived: total, totalBytesExpected: plan?.totalLength ?? 0)]
    }

    private mutating func invalid(_ message: String) -> [Action] {
        phase = .done
        return [.fail(.error(.invalidState(message)))]
    }
}
