#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

extension OSSBatchRunner {
    /// Sends one file: below the threshold as one PutObject of a checked snapshot, else as a resumable multipart
    /// upload whose record lives in the batch's `records` directory. A file that changes while it is read is sent
    /// again once, then fails with ``OSSClientErrorCode/fileChanged``; nothing torn is ever stored.
    func upload(_ work: OSSBatchWork, _ entry: OSSLocalEntry, meter: OSSBatchFileMeter) async throws -> OSSBatchItemOutcome {
        if await storedByEarlierRun(work, entry) {
            meter.foundDone()
            return .uploaded
        }
        for attempt in 0..<2 {
            do {
                if let fileTransport {
                    try await uploadTransported(work, fileTransport)
                } else if isResumable(work) {
                    try await uploadResumably(work, meter: meter)
                } else {
                    try await uploadSnapshot(work, meter: meter)
                }
                return .uploaded
            } catch let error as OSSClientError where Self.isFileChanged(error) {
                // Read again once; a second change is the file's failure (`fileChanged`), however it was noticed.
                if attempt == 0 { continue }
            }
        }
        throw OSSBatchItemProblem.failed(
            OSSBatchFailure(.fileChanged, "\(localPath(of: work)) kept changing while it was read for the upload"))
    }

    /// Whether a small file an earlier run had in flight when it stopped is stored already: its process may have
    /// finished the PutObject after its last journal entry. The object must have the file's size and the
    /// modification time an upload of the file as it is now writes (``modificationTimeMetadata``); one HEAD, and
    /// any doubt (no object, another time, a failed HEAD) sends the file. A resumable upload goes on from its record
    /// instead.
    private func storedByEarlierRun(_ work: OSSBatchWork, _ entry: OSSLocalEntry) async -> Bool {
        guard wasInFlight(work), !isResumable(work),
            let head = try? await client.headObject(OSSHeadObjectRequest(bucketName: request.bucketName, objectKey: work.key))
        else { return false }
        return head.contentLength == entry.size
            && head.metadata[Self.modificationTimeMetadata] == Self.stamp(entry.modificationNanoseconds)
    }

    /// The user metadata (`x-oss-meta-mtime`) every upload of a batch carries: the file's modification time as it
    /// was read, in seconds since 1970 with nine decimals. A sync reads it back only for a file modified within the
    /// second after its object's `Last-Modified`, which whole seconds cannot order.
    static let modificationTimeMetadata = "mtime"

    /// The metadata an upload of a file last modified at `modificationNanoseconds` creates its object with: the
    /// options' ``OSSDirectoryTransferOptions/objectMetadata`` and the batch's ``modificationTimeMetadata``, which
    /// wins over an entry of the same header.
    func objectMetadata(modificationNanoseconds: Int64?, item: [String: String]? = nil) -> [String: String] {
        let own = OSSObjectMetadata.headerName(for: Self.modificationTimeMetadata)
        var metadata = options.objectMetadata ?? [:]
        if let item {
            // The item's entries win over the options' of the same header, however spelled.
            let overridden = Set(item.keys.map(OSSObjectMetadata.headerName(for:)))
            metadata = metadata.filter { !overridden.contains(OSSObjectMetadata.headerName(for: $0.key)) }
            metadata.merge(item) { _, new in new }
        }
        guard let modificationNanoseconds else { return metadata }
        metadata = metadata.filter { OSSObjectMetadata.headerName(for: $0.key) != own }
        metadata[Self.modificationTimeMetadata] = Self.stamp(modificationNanoseconds)
        return metadata
    }

    /// `nanoseconds` since 1970 as `seconds.nnnnnnnnn`.
    static func stamp(_ nanoseconds: Int64) -> String {
        let (seconds, fraction) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let digits = String(fraction.magnitude)
        return (nanoseconds < 0 && seconds == 0 ? "-" : "") + "\(seconds)." + String(repeating: "0", count: 9 - digits.count) + digits
    }

    /// Whether `error` says the file changed under an upload.
    static func isFileChanged(_ error: OSSClientError) -> Bool {
        if error.code == .fileChanged { return true }
        if error.code == .cannotResumeUpload, case .fileChanged? = error.underlying as? OSSResumableError { return true }
        return false
    }

    /// PutObject of the file's bytes read into memory under a transfer slot and a part slot charged with them;
    /// the file's size and modification time are checked after the read (`fileChanged` when they moved).
    private func uploadSnapshot(_ work: OSSBatchWork, meter: OSSBatchFileMeter) async throws {
        let path = localPath(of: work)
        let scheduler = client.scheduler
        let priority = options.priority
        let size = try await OSSFile.withFile(path, .read) { try $0.size() }
        try await scheduler.withTransferSlot(priority: priority) {
            try await scheduler.withPartSlot(priority: priority, bytes: size) {
                let (data, stamp) = try await Self.snapshot(path)
                var put = OSSPutObjectRequest(
                    bucketName: request.bucketName, objectKey: work.key, source: .data(data),
                    metadata: objectMetadata(modificationNanoseconds: stamp.modificationNanoseconds, item: work.metadata))
                put.crcFlag = crcEnabled
                put.uploadProgress = meter.handler
                _ = try await client.putObject(put)
            }
        }
    }

    /// How long a file must have been left alone before its bytes are trusted as one version of it. The kernel sets
    /// a file's modification time when a write starts (and in ticks of a few milliseconds), so a write under way, or
    /// several in one tick, leave size and time unchanged while the bytes move; a file last modified this recently is
    /// read again only once this much time has passed since, and must read the same.
    static let settleTime: Duration = .seconds(1)

    /// How long to wait before trusting bytes read from a file last modified at `stamp`: nothing when that was at
    /// least ``settleTime`` ago, else what is left of it (at most ``settleTime``, also for a time in the future).
    static func unsettled(_ stamp: OSSFileStamp) -> Duration {
        let age = Duration.nanoseconds(Int64((Date().timeIntervalSince1970 * 1e9).rounded()) - stamp.modificationNanoseconds)
        return age >= settleTime ? .zero : Swift.min(settleTime, settleTime - age)
    }

    /// The whole file, read twice through one descriptor whose `fstat` before and after the reads must agree, and
    /// that `fstat`. The second read must give the same bytes: a write already under way when the first `fstat` ran
    /// does not move the modification time again (the kernel sets it as the write starts), so only the bytes can
    /// tell that a read overlapped it; for a file modified within ``settleTime`` the second read waits until that
    /// much time has passed (a write that was under way has ended by then, or moved the time again).
    static func snapshot(_ path: String) async throws -> (Data, OSSFileStamp) {
        try await OSSFile.withFile(path, .read) { file in
            let before = try file.stamp()
            let data = try await file.read(at: 0, count: Int(before.size))
            let wait = unsettled(before)
            if wait > .zero { try await Task.sleep(for: wait) }
            let again = try await file.read(at: 0, count: Int(before.size))
            let after = try file.stamp()
            guard before == after, Int64(data.count) == before.size else {
                throw OSSClientError(
                    .fileChanged,
                    "\(path) changed while it was read (size \(before.size) → \(after.size), modification time "
                        + "\(before.modificationNanoseconds) → \(after.modificationNanoseconds) ns)")
            }
            guard again == data else {
                throw OSSClientError(.fileChanged, "\(path) changed while it was read (a second read gave other bytes)")
            }
            return (data, before)
        }
    }

    /// A resumable upload: its own transfer slot and part slots, paused (never aborted) when the batch stops.
    /// A multipart upload never completes over a file that changed since it started (the upload's own check), so
    /// the modification time taken here is the one of the bytes sent.
    private func uploadResumably(_ work: OSSBatchWork, meter: OSSBatchFileMeter) async throws {
        let path = localPath(of: work)
        var stamp = try await OSSFile.withFile(path, .read) { try $0.stamp() }
        // A file modified within the settle time may have a write under way whose bytes the parts would read torn
        // while its time stays put: start once it has settled, so that any later write moves the time the upload
        // checks before it completes.
        let wait = Self.unsettled(stamp)
        if wait > .zero {
            try await Task.sleep(for: wait)
            stamp = try await OSSFile.withFile(path, .read) { try $0.stamp() }
        }
        var upload = OSSResumableUploadRequest(
            bucketName: request.bucketName, objectKey: work.key, uploadingFileURL: URL(fileURLWithPath: path),
            partSize: options.partSize, threadNum: options.partsPerFile, recordDirectoryPath: directory?.recordsPath,
            deleteUploadIdOnCancelling: false, crcFlag: crcEnabled,
            completeMetaHeader: objectMetadata(modificationNanoseconds: stamp.modificationNanoseconds, item: work.metadata),
            uploadProgress: meter.handler)
        upload.priority = options.priority
        upload.baseDirectoryURL = baseDirectoryURL
        upload.progressGranularity = .bytes
        let request = upload
        try await control.withPauseHook({ request.pause() }) {
            _ = try await client.resumableUpload(request)
        }
    }
}

extension OSSBatchRunner {
    /// Sends a list item's `Data` (one PutObject under a transfer slot and a part slot charged with it) or stream
    /// (``OSSClient/uploadStream(_:bucket:key:options:)``, which takes its own slots and aborts its multipart upload
    /// when stopped: a stream is sent again from its start, never resumed from a part).
    func upload(_ work: OSSBatchWork, _ item: OSSListTransferRequest.Upload, meter: OSSBatchFileMeter) async throws
        -> OSSBatchItemOutcome
    {
        if let fileTransport {
            // A transport moves files only: sending these bytes as they are would break its promise.
            throw OSSBatchItemProblem.failed(
                OSSBatchFailure(
                    .invalidArgument, "\(work.key): the batch's transport \(fileTransport.identifier) sends files only"))
        }
        let source = try await sources.source(of: item)
        let metadata = objectMetadata(modificationNanoseconds: nil, item: item.objectMetadata)
        let priority = options.priority
        switch source {
        case .data(let data):
            let scheduler = client.scheduler
            try await scheduler.withTransferSlot(priority: priority) {
                try await scheduler.withPartSlot(priority: priority, bytes: Int64(data.count)) {
                    var put = OSSPutObjectRequest(
                        bucketName: request.bucketName, objectKey: work.key, source: .data(data), metadata: metadata)
                    put.crcFlag = crcEnabled
                    put.uploadProgress = meter.handler
                    _ = try await client.putObject(put)
                }
            }
        case .stream(_, let make):
            var streamOptions = OSSStreamUploadOptions(
                partSize: Int(clamping: max(options.partSize, Int64(OSSStreamUploadOptions.minimumPartSize))),
                concurrency: options.partsPerFile, metadata: metadata, uploadProgress: meter.handler, crcFlag: crcEnabled)
            streamOptions.priority = priority
            let stream: AsyncThrowingStream<Data, any Error>
            do {
                stream = try await make()
            } catch {
                if error.isTransferCancellation || Task.isCancelled { throw error }
                throw OSSBatchItemProblem.failed(
                    OSSBatchFailure(OSSClientError(.fileCantRead, "the stream of \(work.key) could not be made: \(error)", underlying: error)))
            }
            _ = try await client.uploadStream(stream, bucket: request.bucketName, key: work.key, options: streamOptions)
        case .file:
            throw OSSBatchItemProblem.failed(
                OSSBatchFailure(.invalidArgument, "\(work.key) was listed as \(item.kind.rawValue), and given back as a file"))
        }
        return .uploaded
    }
}

/// What `fstat` says of an open file, compared before and after reading it.
struct OSSFileStamp: Sendable, Equatable {
    let size: Int64
    let modificationNanoseconds: Int64
}
