import Foundation
import OSSResumable

extension OSSBackgroundTransferService {
    /// Pauses a background transfer: records it paused (durably, first), then withdraws the tasks the system
    /// holds for it. The record, the confirmed parts, the part copies (upload) and the temporary file
    /// (download) are kept. A task the system had already started may still end; an attach records its outcome
    /// as usual but submits nothing for a paused transfer. A paused upload whose parts all end up verified is
    /// still completed at the next attach (nothing is left to send). ``resume(transferId:)`` continues it.
    ///
    /// - Throws: `.invalidArgument` when no record has this id; `.transferInUse` when another process holds it.
    public func pause(transferId: String) async throws {
        try await withRecord(transferId) { name, kind in
            switch kind {
            case .upload:
                if let record = try await load(OSSBackgroundUploadRecord.self, name: name) {
                    try await withdraw(pausing(record), save: save)
                }
            case .download:
                if let record = try await load(OSSBackgroundDownloadRecord.self, name: name) {
                    try await withdraw(pausing(record), save: saveDownload)
                }
            }
        }
    }

    /// Resumes a transfer paused with ``pause(transferId:)``: clears the pause in its record, then attaches
    /// (``reconcile()``), which hands the missing parts to the system again with fresh signatures. Returns that
    /// attach's report. Resuming a transfer that is not paused just attaches.
    ///
    /// - Throws: `.invalidArgument` when no record has this id; `.transferInUse` when another process holds it.
    @discardableResult
    public func resume(transferId: String) async throws -> OSSBackgroundReconcileReport {
        try await withRecord(transferId) { name, kind in
            switch kind {
            case .upload:
                if var record = try await load(OSSBackgroundUploadRecord.self, name: name) {
                    record.pausedAt = nil
                    try await save(record)
                }
            case .download:
                if var record = try await load(OSSBackgroundDownloadRecord.self, name: name) {
                    record.pausedAt = nil
                    try await saveDownload(record)
                }
            }
        }
        return try await reconcile()
    }

    /// Runs `body` with the name and direction of transfer `transferId`'s record while holding its lock.
    ///
    /// - Throws: `.invalidArgument` when no record has this id; `.transferInUse` when another process holds it.
    func withRecord(_ transferId: String, _ body: (String, OSSTransferKind) async throws -> Void) async throws {
        let names = try recordNames()
        guard let name = [Self.recordName(transferId), Self.downloadRecordName(transferId)].first(where: names.contains) else {
            throw OSSClientError.invalidArgument("no background transfer \(transferId)")
        }
        guard let lock = try await lockRecord(name) else {
            throw OSSClientError.transferInUse(lockPath: store.lockPath(name: name))
        }
        defer { withExtendedLifetime(lock) {} }
        try await body(name, Self.parseRecordName(name).1)
    }

    private func pausing<Record: OSSBackgroundRecord>(_ record: Record) -> Record {
        var record = record
        record.pausedAt = record.pausedAt ?? Int64(Date().timeIntervalSince1970)
        return record
    }

    /// Saves the paused record, then cancels the tasks of its queued parts.
    private func withdraw<Record: OSSBackgroundRecord>(_ record: Record, save: (Record) async throws -> Void) async throws {
        try await save(record)
        var queued = Set<String>()
        for part in record.parts {
            if case .queued(let description) = part.state { queued.insert(description) }
        }
        if !queued.isEmpty { try await system.cancelTasks(describedAs: queued) }
    }

    /// Ends a background transfer for good: cancels its tasks in the system, aborts its multipart upload (an
    /// upload) and removes its part copies or temporary file and its record. Events its running tasks still
    /// report are dropped as unknown at the next attach.
    ///
    /// - Throws: `.invalidArgument` when no record has this id; `.transferInUse` when another process holds it.
    public func cancel(transferId: String) async throws {
        try await withRecord(transferId) { name, kind in
            switch kind {
            case .upload:
                guard let record = try await load(OSSBackgroundUploadRecord.self, name: name) else { return }
                try await system.cancelTasks(describedAs: Set(record.parts.map { record.taskDescription(part: $0.number) }))
                do {
                    _ = try await client.abortMultipartUpload(
                        OSSAbortMultipartUploadRequest(bucketName: record.bucket, objectKey: record.key, uploadId: record.uploadId))
                } catch let error as OSSServerError where error.code == "NoSuchUpload" {
                    // Already gone: nothing to abort.
                }
                try await sweep(record)
            case .download:
                guard let record = try await load(OSSBackgroundDownloadRecord.self, name: name) else { return }
                try await system.cancelTasks(describedAs: Set(record.parts.map { record.taskDescription(part: $0.number) }))
                try await abandonDownload(record)
            }
        }
    }
}
