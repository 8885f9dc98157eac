import Foundation
import OSSCRC64
import OSSResumable

extension OSSBackgroundTransferService {
    /// One attach: takes the system's pending tasks and delivered events, reconciles every background transfer
    /// of the record directory with them, saves each record, submits what is missing or failed, finishes the
    /// transfers whose parts are all verified (checking CRC-64), sweeps their temporary files and records, and
    /// only then acknowledges the events.
    ///
    /// A transfer whose record another process holds is left alone (``OSSBackgroundReconcileReport/Transfer/busy``),
    /// and so are its events.
    public func reconcile() async throws -> OSSBackgroundReconcileReport {
        try await attach(.full)
    }

    /// What an attach does: everything, or only the local work the system waits for when it relaunched the app
    /// (``handleEventsForBackgroundURLSession(identifier:completionHandler:)``).
    enum AttachScope: Sendable {
        /// Records the delivered outcomes, submits the parts that are missing or failed, finishes downloads (all
        /// local work), and acknowledges the events. No request goes to OSS: a part recorded queued that the system
        /// neither holds nor reported stays queued until a full attach asks ListParts, and no upload is completed.
        case recordOnly
        /// Everything: ListParts for the parts whose outcome was lost, Complete (and HEAD for a lost answer).
        case full
    }

    func attach(_ scope: AttachScope) async throws -> OSSBackgroundReconcileReport {
        // The pending tasks first, then the events: a task that ends between the two reads is in both (its event
        // decides), never in neither, which would make it look lost and send its part a second time.
        let pending = Set(try await system.pendingTaskDescriptions())
        let events = try await system.deliveredEvents()
        var byTransfer: [String: [OSSBackgroundTaskEvent]] = [:]
        var report = OSSBackgroundReconcileReport()
        var acknowledged: [OSSBackgroundTaskEvent] = []
        for event in events {
            guard let parsed = OSSBackgroundTaskDescription(parsing: event.taskDescription) else {
                report.unknownEvents += 1
                acknowledged.append(event)
                continue
            }
            byTransfer[parsed.transferId, default: []].append(event)
        }
        var known = Set<String>()
        for name in try recordNames() {
            let (transferId, kind) = Self.parseRecordName(name)
            known.insert(transferId)
            let mine = byTransfer[transferId] ?? []
            guard let lock = try await lockRecord(name) else {
                var busy = OSSBackgroundReconcileReport.Transfer(kind: kind, transferId: transferId)
                busy.busy = true
                report.transfers.append(busy)
                continue
            }
            do {
                defer { withExtendedLifetime(lock) {} }
                let transfer =
                    switch kind {
                    case .upload: try await reconcileUpload(transferId, events: mine, pending: pending, scope: scope)
                    case .download: try await reconcileDownload(transferId, events: mine, pending: pending)
                    }
                if let transfer { report.transfers.append(transfer) }
                acknowledged += mine  // recorded durably above (or the record vanished meanwhile)
            } catch {
                if error is CancellationError || Task.isCancelled { throw error }  // never swallowed
                // This transfer's events stay with the system for the next attach; the others go on.
                var failed = OSSBackgroundReconcileReport.Transfer(kind: kind, transferId: transferId)
                failed.error = "\(error)"
                report.transfers.append(failed)
            }
        }
        for (transferId, orphans) in byTransfer where !known.contains(transferId) {
            report.unknownEvents += orphans.count
            acknowledged += orphans
        }
        if !acknowledged.isEmpty { try await system.acknowledge(acknowledged) }
        return report
    }

    /// The record's lock, or `nil` when another process holds it.
    func lockRecord(_ name: String) async throws -> OSSRecordLock? {
        do {
            return try await OSSBlockingIO.run { [store] () throws(OSSResumableError) in try store.lock(name: name) }
        } catch .recordLocked {
            return nil
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot lock the background record \(name): \(error)", underlying: error)
        }
    }

    func load<Record: OSSTransferRecord>(_ type: Record.Type, name: String) async throws -> Record? {
        do {
            return try await OSSBlockingIO.run { [store] () throws(OSSResumableError) in try store.load(type, name: name) }
        } catch {
            throw OSSClientError(.fileCantRead, "the background record \(name) is unusable: \(error)", underlying: error)
        }
    }

    private func reconcileUpload(
        _ transferId: String, events: [OSSBackgroundTaskEvent], pending: Set<String>, scope: AttachScope
    ) async throws -> OSSBackgroundReconcileReport.Transfer?
    {
        guard let record = try await load(OSSBackgroundUploadRecord.self, name: Self.recordName(transferId)) else { return nil }
        let pending = try await withdrawExpiring(record.parts, pending: pending)
        let completions = events.map {
            OSSBackgroundPartCompletion(
                description: $0.taskDescription, status: $0.status, etag: $0.headers["etag"],
                serverCRC64: $0.headers["x-oss-hash-crc64ecma"].flatMap(CRC64.parseHeaderValue))
        }
        var decision = OSSBackgroundUploadReconciler.reconcile(
            record, completions: completions, pendingDescriptions: pending, maximumQueued: record.queueLimit)
        // Parts recorded queued whose task the system neither holds nor reported (a lost event, or a submission a
        // crash cut short): ListParts decides before anything is sent again.
        let outcomes = decision.outcomes
        let reported = Set(outcomes.map(\.part))
        let vanished = Set(
            record.parts.filter { part in
                guard case .queued = part.state else { return false }
                return !reported.contains(part.number) && decision.record.parts[part.number - 1].state == .waiting
            }.map(\.number))
        var adopted: [Int] = []
        if !vanished.isEmpty, scope == .recordOnly {
            // ListParts is network work: the parts stay queued, as if the system held them, for the full attach.
            let held = pending.union(
                record.parts.compactMap { part -> String? in
                    guard vanished.contains(part.number), case .queued(let description) = part.state else { return nil }
                    return description
                })
            decision = OSSBackgroundUploadReconciler.reconcile(
                record, completions: completions, pendingDescriptions: held, maximumQueued: record.queueLimit)
        } else if !vanished.isEmpty {
            let listed = try await client.listAllParts(bucket: record.bucket, key: record.key, uploadId: record.uploadId)
            (decision.record, adopted) = OSSBackgroundUploadReconciler.adopt(decision.record, listed: listed, candidates: vanished)
            if !adopted.isEmpty {
                decision = OSSBackgroundUploadReconciler.reconcile(
                    decision.record, completions: [], pendingDescriptions: pending, maximumQueued: record.queueLimit)
            }
        }
        var upload = OSSBackgroundReconcileReport.Transfer(kind: .upload, transferId: transferId)
        upload.bucket = record.bucket
        upload.key = record.key
        upload.totalParts = record.parts.count
        upload.partsDoneBefore = record.parts.filter(\.state.isDone).count
        upload.partsSubmitted = decision.partsToSubmit
        upload.partsInFlight = decision.partsInFlight
        upload.completedBytes = decision.record.completedBytes
        upload.totalBytes = record.fileSize
        upload.paused = record.pausedAt != nil
        upload.partsVerified = adopted
        for outcome in outcomes {
            switch outcome {
            case .verified(let part): upload.partsVerified.append(part)
            case .failed(let part, _), .crcMismatch(let part, _, _): upload.partsFailed.append(part)
            case .duplicate, .superseded: break
            }
        }
        try await save(decision.record)
        decision.record = try await submit(parts: decision.partsToSubmit, of: decision.record)
        if decision.readyToComplete, scope == .full {
            upload.completedCRC64 = try await complete(decision.record)
            try await sweep(decision.record)
        }
        return upload
    }
}
