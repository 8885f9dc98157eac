/// The pure decision at every attach of a background upload: given its record, the completions the system
/// delivered for it and the descriptions of the tasks the system still holds, which parts are now confirmed,
/// which must be handed to the system (again), and whether the upload can be completed.
///
/// A part is confirmed only by a 200 whose `x-oss-hash-crc64ecma` equals the CRC-64 recorded for its copy, with
/// an ETag. Anything else (an error status, no response, a CRC mismatch) sends it again. A part whose task the
/// record says is queued but which the system neither holds nor reported (the record was written, then the
/// process died before the submission) is sent again too. A completion for a part already confirmed (a stale
/// duplicate) changes nothing.
package enum OSSBackgroundUploadReconciler {
    /// What happened to one completion.
    package enum Outcome: Sendable, Hashable {
        /// The part is confirmed now.
        case verified(part: Int)
        /// The server answered 200 but its CRC-64 differs from the copy's: the part is sent again.
        case crcMismatch(part: Int, expected: UInt64, server: UInt64?)
        /// The task failed (status or no response): the part is sent again.
        case failed(part: Int, status: Int?)
        /// A completion for a part that was already confirmed.
        case duplicate(part: Int)
        /// A failure of an older task of a part the system holds a newer task for (the part was submitted again
        /// before this failure was acknowledged, or its task was replaced to re-sign it): the newer task decides.
        case superseded(part: Int)

        /// The part the completion was for.
        package var part: Int {
            switch self {
            case .verified(let part), .crcMismatch(let part, _, _), .failed(let part, _), .duplicate(let part),
                .superseded(let part):
                part
            }
        }
    }

    /// The result of one reconciliation.
    package struct Decision: Sendable, Hashable {
        /// The record with the confirmed parts marked done (save it before anything else).
        package var record: OSSBackgroundUploadRecord
        /// One entry per completion that named this transfer, in the order given.
        package var outcomes: [Outcome]
        /// Parts to hand to the system now, in order (at most `maximumQueued` in flight in total).
        package var partsToSubmit: [Int]
        /// Parts still in the system's hands.
        package var partsInFlight: [Int]
        /// Every part is confirmed: CompleteMultipartUpload may run.
        package var readyToComplete: Bool { record.allPartsDone }
    }

    /// Reconciles `record` with `completions` (those of other transfers are ignored) and the descriptions of
    /// the tasks the system still holds. At most `maximumQueued` parts are left in flight.
    package static func reconcile(
        _ record: OSSBackgroundUploadRecord,
        completions: [OSSBackgroundPartCompletion],
        pendingDescriptions: Set<String>,
        maximumQueued: Int
    ) -> Decision {
        var record = record
        var outcomes: [Outcome] = []
        var reported = Set<Int>()
        for completion in completions {
            guard let parsed = OSSBackgroundTaskDescription(parsing: completion.description),
                parsed.transferId == record.transferId,
                let index = record.parts.firstIndex(where: { $0.number == parsed.partNumber })
            else { continue }
            let part = record.parts[index]
            if part.state.isDone {
                outcomes.append(.duplicate(part: part.number))
                continue
            }
            let succeeded = completion.status == 200 && completion.serverCRC64 != nil && completion.serverCRC64 == part.crc64
            if !succeeded, pendingDescriptions.contains(completion.description) {
                outcomes.append(.superseded(part: part.number))
                continue
            }
            reported.insert(part.number)
            guard completion.status == 200, let etag = completion.etag, !etag.isEmpty, let expected = part.crc64 else {
                outcomes.append(.failed(part: part.number, status: completion.status))
                record.parts[index].state = .waiting
                continue
            }
            guard completion.serverCRC64 == expected else {
                outcomes.append(.crcMismatch(part: part.number, expected: expected, server: completion.serverCRC64))
                record.parts[index].state = .waiting
                continue
            }
            record.parts[index].state = .done(etag: etag, crc64: expected)
            outcomes.append(.verified(part: part.number))
        }
        var states = record.parts.map(\.state)
        let schedule = OSSBackgroundPartScheduler.schedule(
            states: &states, numbers: record.parts.map(\.number), reported: reported, pendingDescriptions: pendingDescriptions,
            maximumQueued: maximumQueued)
        for index in record.parts.indices { record.parts[index].state = states[index] }
        return Decision(
            record: record, outcomes: outcomes, partsToSubmit: schedule.partsToSubmit, partsInFlight: schedule.partsInFlight)
    }
}

extension OSSBackgroundUploadReconciler {
    /// The server as the final authority for parts whose outcome never arrived: each part in `candidates` that
    /// ListParts shows with the part's length and the CRC-64 recorded for its copy (and an ETag) is done, and is
    /// not sent again. Returns the record and the parts adopted.
    package static func adopt(
        _ record: OSSBackgroundUploadRecord, listed: [OSSUploadStateMachine.ServerPart], candidates: Set<Int>
    ) -> (record: OSSBackgroundUploadRecord, adopted: [Int]) {
        var record = record
        var adopted: [Int] = []
        let byNumber = Dictionary(listed.map { ($0.number, $0) }, uniquingKeysWith: { _, last in last })
        for index in record.parts.indices where candidates.contains(record.parts[index].number) {
            let part = record.parts[index]
            guard !part.state.isDone, let expected = part.crc64, let server = byNumber[part.number],
                server.size == part.length, server.crc64 == expected, !server.etag.isEmpty
            else { continue }
            record.parts[index].state = .done(etag: server.etag, crc64: expected)
            adopted.append(part.number)
        }
        return (record, adopted)
    }
}

/// The pure decision of a background download: whether a range's completion is usable.
package enum OSSBackgroundDownloadReconciler {
    package enum Verdict: Sendable, Hashable {
        /// The range holds the pinned object's bytes: place it.
        case accept
        /// The object was replaced (412 to `If-Match`, or another ETag): the download cannot continue.
        case objectChanged
        /// The task failed or returned something else: the range is fetched again.
        case retry
    }

    /// A range is accepted with 206 (or 200 when it is the whole object), the record's ETag, and exactly the
    /// range's length on disk.
    package static func verdict(
        status: Int?, etag: String?, receivedLength: Int64?, part: OSSBackgroundDownloadRecord.Part,
        record: OSSBackgroundDownloadRecord
    ) -> Verdict {
        if status == 412 { return .objectChanged }
        let whole = part.offset == 0 && part.length == record.objectSize
        guard status == 206 || (status == 200 && whole) else { return .retry }
        guard let etag else { return .retry }
        guard etag == record.etag else { return .objectChanged }
        return receivedLength == part.length ? .accept : .retry
    }
}
