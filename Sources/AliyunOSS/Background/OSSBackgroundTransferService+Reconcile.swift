import Foundation
import OSSCRC64
import OSSResumable

extension OSSBackgroundTransferService {
    /// One attach: takes the system's delivered events and pending tasks, reconciles every background upload
    /// of the record directory with them (``OSSBackgroundUploadReconciler``), saves each record, submits what
    /// is missing or failed, completes the uploads whose parts are all verified (checking the object's CRC-64),
    /// sweeps their part copies and records, and only then acknowledges the events.
    ///
    /// A transfer whose record another process holds is left alone (``OSSBackgroundReconcileReport/Upload/busy``),
    /// and so are its events.
    public func reconcile() async throws -> OSSBackgroundReconcileReport {
        let events = try await system.deliveredEvents()
        let pending = Set(try await system.pendingTaskDescriptions())
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
            let transferId = String(name.dropLast(Self.recordSuffix.count))
            known.insert(transferId)
            let mine = byTransfer[transferId] ?? []
            if let upload = try await reconcileUpload(transferId, events: mine, pending: pending) {
                report.uploads.append(upload)
                if !upload.busy { acknowledged += mine }
            } else {
                acknowledged += mine  // the record vanished meanwhile
            }
        }
        for (transferId, orphans) in byTransfer where !known.contains(transferId) {
            report.unknownEvents += orphans.count
            acknowledged += orphans
        }
        if !acknowledged.isEmpty { try await system.acknowledge(acknowledged) }
        return report
    }

    private func reconcileUpload(_ transferId: String, events: [OSSBackgroundTaskEvent], pending: Set<String>)
        async throws -> OSSBackgroundReconcileReport.Upload?
    {
        let name = Self.recordName(transferId)
        let lock: OSSRecordLock
        do {
            lock = try await OSSBlockingIO.run { [store] () throws(OSSResumableError) in try store.lock(name: name) }
        } catch .recordLocked {
            return OSSBackgroundReconcileReport.Upload(
                transferId: transferId, bucket: "", key: "", totalParts: 0, partsDoneBefore: 0, partsVerified: [], partsFailed: [],
                partsSubmitted: [], partsInFlight: [], completedBytes: 0, totalBytes: 0, completedCRC64: nil, busy: true)
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot lock the background record \(name): \(error)", underlying: error)
        }
        defer { withExtendedLifetime(lock) {} }
        let loaded: OSSBackgroundUploadRecord?
        do {
            loaded = try await OSSBlockingIO.run { [store] () throws(OSSResumableError) in
                try store.load(OSSBackgroundUploadRecord.self, name: name)
            }
        } catch {
            throw OSSClientError(.fileCantRead, "the background record \(name) is unusable: \(error)", underlying: error)
        }
        guard let record = loaded else { return nil }
        let completions = events.map {
            OSSBackgroundPartCompletion(
                description: $0.taskDescription, status: $0.status, etag: $0.headers["etag"],
                serverCRC64: $0.headers["x-oss-hash-crc64ecma"].flatMap(CRC64.parseHeaderValue))
        }
        var decision = OSSBackgroundUploadReconciler.reconcile(
            record, completions: completions, pendingDescriptions: pending, maximumQueued: record.maximumQueuedParts)
        var upload = OSSBackgroundReconcileReport.Upload(
            transferId: transferId, bucket: record.bucket, key: record.key, totalParts: record.parts.count,
            partsDoneBefore: record.parts.filter(\.state.isDone).count, partsVerified: [], partsFailed: [],
            partsSubmitted: decision.partsToSubmit, partsInFlight: decision.partsInFlight,
            completedBytes: decision.record.completedBytes, totalBytes: record.fileSize, completedCRC64: nil)
        for outcome in decision.outcomes {
            switch outcome {
            case .verified(let part): upload.partsVerified.append(part)
            case .failed(let part, _), .crcMismatch(let part, _, _): upload.partsFailed.append(part)
            case .duplicate: break
            }
        }
        try await save(decision.record)
        decision.record = try await submit(parts: decision.partsToSubmit, of: decision.record)
        if decision.readyToComplete {
            upload.completedCRC64 = try await complete(decision.record)
            try await sweep(decision.record)
        }
        return upload
    }
}
