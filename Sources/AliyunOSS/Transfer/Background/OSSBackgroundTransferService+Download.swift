import Foundation
import OSSResumable

/// A download whose ranges the system carries (``OSSBackgroundTransferService/startDownload(_:)``).
public struct OSSBackgroundDownloadRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// Where the object is written once every range is verified (replaced atomically).
    public var downloadToFileURL: URL
    /// The range size (at least 64 KiB). Default 4 MiB.
    public var partSize: Int64
    /// The most range tasks handed to the system at once. Default 16.
    public var maximumQueuedParts: Int
    /// Whether an object encrypted on the client side is downloaded as it is stored (ciphertext); by default
    /// ``OSSBackgroundTransferService/startDownload(_:)`` refuses it with ``OSSClientErrorCode/encryptedObject``
    /// before anything is recorded.
    public var acceptsCiphertext = false

    public init(
        bucketName: String, objectKey: String, downloadToFileURL: URL, partSize: Int64 = 4 << 20, maximumQueuedParts: Int = 16
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.downloadToFileURL = downloadToFileURL
        self.partSize = partSize
        self.maximumQueuedParts = maximumQueuedParts
    }
}

extension OSSBackgroundTransferService {
    /// Pins the object (HEAD: size, ETag, CRC-64), records the download, and hands its first ranges to the system
    /// as download tasks (presigned GET, `Range`, `If-Match`). Returns the transfer id.
    public func startDownload(_ request: OSSBackgroundDownloadRequest) async throws -> String {
        guard request.downloadToFileURL.isFileURL, request.maximumQueuedParts >= 1 else {
            throw OSSClientError.invalidArgument("a background download needs a file URL and maximumQueuedParts >= 1")
        }
        _ = try await presignExpiration()  // credentials about to expire: fail before anything is recorded
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: request.objectKey))
        guard let etag = head.eTag, !etag.isEmpty else {
            throw OSSClientError(.notKnown, "the object has no ETag to pin its version with")
        }
        if !request.acceptsCiphertext,
            let refusal = OSSClientError.ciphertextRefusal(
                headers: head.headers, bucket: request.bucketName, key: request.objectKey)
        {
            throw refusal
        }
        let plan: OSSPartPlan
        do {
            plan = try OSSPartPlan.download(
                range: try OSSByteRange(start: 0, length: head.contentLength), preferredPartSize: request.partSize)
        } catch {
            throw OSSClientError.invalidArgument("\(error)")
        }
        let transferId = Self.newTransferId()
        let destination = OSSRecordStore.absolutePath(request.downloadToFileURL.path)
        // `.<name>.<transferId>.download` beside the destination, so that the final rename never crosses file
        // systems; `<name>` is shortened when the whole would not fit NAME_MAX (the record keeps the path).
        let temporary = OSSDerivedFileName.path(
            OSSDurableFile.parentDirectory(of: destination) + "/" + request.downloadToFileURL.lastPathComponent,
            prefix: ".", suffix: "." + transferId + ".download")
        var record = OSSBackgroundDownloadRecord(
            transferId: transferId, bucket: request.bucketName, key: request.objectKey, destinationPath: destination,
            tempFilePath: temporary, etag: etag, objectCRC64: head.crc64, plan: plan,
            maximumQueuedParts: request.maximumQueuedParts)
        guard let lock = try await lockRecord(Self.downloadRecordName(transferId)) else {
            throw OSSClientError(.fileCantWrite, "the new background record is locked")
        }
        defer { withExtendedLifetime(lock) {} }
        let temp = record.tempFilePath
        try await Self.fileStep(.download) { () throws(OSSResumableError) in try OSSRangePlacement.prepare(path: temp, size: head.contentLength) }
        try await saveDownload(record)
        if record.parts.isEmpty {
            _ = try await finishDownload(record)
            return transferId
        }
        record = try await submitRanges(record.parts.prefix(request.maximumQueuedParts).map(\.number), of: record)
        return transferId
    }

    func reconcileDownload(_ transferId: String, events: [OSSBackgroundTaskEvent], pending: Set<String>)
        async throws -> OSSBackgroundReconcileReport.Transfer?
    {
        guard var record = try await load(OSSBackgroundDownloadRecord.self, name: Self.downloadRecordName(transferId)) else {
            return nil
        }
        let pending = try await withdrawExpiring(record.parts, pending: pending)
        var report = OSSBackgroundReconcileReport.Transfer(kind: .download, transferId: transferId)
        report.bucket = record.bucket
        report.key = record.key
        report.totalParts = record.parts.count
        report.totalBytes = record.objectSize
        report.paused = record.pausedAt != nil
        report.partsDoneBefore = record.parts.filter(\.state.isDone).count
        var reported = Set<Int>()
        for event in events {
            guard let parsed = OSSBackgroundTaskDescription(parsing: event.taskDescription),
                let index = record.parts.firstIndex(where: { $0.number == parsed.partNumber })
            else { continue }
            let part = record.parts[index]
            if part.state.isDone { continue }
            let received = event.downloadedFilePath.flatMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int64 }
            let verdict = OSSBackgroundDownloadReconciler.verdict(
                status: event.status, etag: event.headers["etag"], receivedLength: received, part: part, record: record)
            if verdict != .retry || !pending.contains(event.taskDescription) { reported.insert(part.number) }
            switch verdict {
            case .objectChanged:
                try await abandonDownload(record)
                report.objectChanged = true
                return report
            case .retry where pending.contains(event.taskDescription):
                continue  // a newer task of this range is in the system's hands: it decides
            case .retry:
                record.parts[index].state = .waiting
                report.partsFailed.append(part.number)
            case .accept:
                let (source, temp) = (event.downloadedFilePath ?? "", record.tempFilePath)
                let crc = try await Self.fileStep(.download) { () throws(OSSResumableError) in
                    try OSSRangePlacement.place(source: source, length: part.length, into: temp, at: part.offset)
                }
                record.parts[index].state = .done(etag: record.etag, crc64: crc)
                report.partsVerified.append(part.number)
            }
        }
        var states = record.parts.map(\.state)
        let schedule = OSSBackgroundPartScheduler.schedule(
            states: &states, numbers: record.parts.map(\.number), reported: reported, pendingDescriptions: pending,
            maximumQueued: record.queueLimit)
        for index in record.parts.indices { record.parts[index].state = states[index] }
        report.partsSubmitted = schedule.partsToSubmit
        report.partsInFlight = schedule.partsInFlight
        report.completedBytes = record.completedBytes
        try await saveDownload(record)
        record = try await submitRanges(schedule.partsToSubmit, of: record)
        if record.allPartsDone { report.completedCRC64 = try await finishDownload(record) }
        return report
    }

    /// Records the ranges as queued, then submits one download task per range for a freshly presigned GET.
    private func submitRanges(_ numbers: [Int], of record: OSSBackgroundDownloadRecord) async throws -> OSSBackgroundDownloadRecord {
        guard !numbers.isEmpty else { return record }
        var record = record
        let expiration = try await presignExpiration()
        for number in numbers {
            guard let index = record.parts.firstIndex(where: { $0.number == number }) else { continue }
            record.parts[index].state = .queued(description: record.taskDescription(part: number))
            record.parts[index].signedUntil = Self.signedUntil(expiration)
        }
        try await saveDownload(record)
        for number in numbers {
            guard let range = record.rangeHeader(part: number) else { continue }
            let url = try await client.presignConstrainURL(bucket: record.bucket, key: record.key, method: "GET", expiration: expiration)
            try await system.submit(
                .download(
                    url: url, headers: ["range": range, "if-match": record.etag],
                    taskDescription: record.taskDescription(part: number)))
        }
        return record
    }

    /// Checks the combined CRC-64 against the object's, renames the temporary file over the destination, and
    /// removes the record. Returns the CRC-64.
    private func finishDownload(_ record: OSSBackgroundDownloadRecord) async throws -> UInt64 {
        guard let crc = record.combinedCRC64 else {
            throw OSSClientError(.exceptionCaught, "a download finishes only with every range verified")
        }
        if let expected = record.objectCRC64, expected != crc {
            try await abandonDownload(record)
            throw OSSClientError(.invalidCRC, "the downloaded ranges' CRC-64 \(crc) is not the object's \(expected)")
        }
        let (temp, destination, name) = (record.tempFilePath, record.destinationPath, Self.downloadRecordName(record.transferId))
        try await Self.fileStep(.download) { [store] () throws(OSSResumableError) in
            try OSSDurableFile.rename(temp, to: destination)
            try store.delete(name: name)
        }
        return crc
    }

    /// Drops a download whose object changed (or whose bytes are wrong): its temporary file and record.
    func abandonDownload(_ record: OSSBackgroundDownloadRecord) async throws {
        let (temp, name) = (record.tempFilePath, Self.downloadRecordName(record.transferId))
        try await Self.fileStep(.download) { [store] () throws(OSSResumableError) in
            _ = try? FileManager.default.removeItem(atPath: temp)
            try store.delete(name: name)
        }
    }

    func saveDownload(_ record: OSSBackgroundDownloadRecord) async throws {
        do {
            try await store.saveOffCooperativePool(record, name: Self.downloadRecordName(record.transferId))
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot save the background download record: \(error)", underlying: error)
        }
    }
}
