#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Logging
import OSSResumable

/// The I/O of a resumable download, as the ``OSSTransferDriver`` and the ``OSSDownloadRun`` that built it call
/// for: the HEAD, ranged GETs into the temporary file (`+Fetch`), the record and the checkpoint journal
/// (`+Records`), the commit; `+OSSTransferEffects` maps the download machine's actions onto them. It knows
/// nothing of the driver or of the run.
///
/// Owned by a single task (the driver's): the record store and the temporary file handle are only touched from
/// it, so records are written one at a time, in part-completion order. Part GETs run in child tasks that only
/// stream bytes into the file and return the part's CRC-64.
final class OSSDownloadEffects {
    let client: OSSClient
    let request: OSSResumableDownloadRequest
    let destinationPath: String
    let tempFilePath: String
    /// Whether the run resumes from a token: a temporary file of the same destination that the token's record
    /// names is followed (``checkTempFile(of:)``).
    let resumesFromToken: Bool
    /// Progress, confirmed parts or bytes.
    let progress: OSSTransferProgressReporter
    /// Where the record lives; `nil` without a record directory.
    let records: OSSTransferRecordSlot?
    var logger: Logger { client.configuration.logger }

    var handle: OSSFile?
    var handlePath: String?
    /// Syncs of the open temporary file, behind its records (``OSSDownloadSyncTracker``).
    var syncTracker: OSSDownloadSyncTracker?
    /// The checkpoint journal of the parts in flight (``OSSDownloadJournalWriter``), while they move.
    var journal: OSSDownloadJournalWriter?
    /// Where the journal's entries go on after those a resume read.
    var journalNextSequence: UInt64 = 0

    init(
        client: OSSClient, request: OSSResumableDownloadRequest, destinationPath: String, tempFilePath: String,
        records: OSSTransferRecordSlot?, resumesFromToken: Bool
    ) {
        self.client = client
        self.request = request
        self.destinationPath = destinationPath
        self.tempFilePath = tempFilePath
        self.records = records
        self.resumesFromToken = resumesFromToken
        progress = OSSTransferProgressReporter(handler: request.downloadProgress, granularity: request.progressGranularity)
    }

    /// HEADs the object: `versionId`, or else the request's version, or else the current one.
    func headObject(versionId: String? = nil) async throws -> OSSObjectIdentity {
        let head = try await client.headObject(
            OSSHeadObjectRequest(
                bucketName: request.bucketName, objectKey: request.objectKey, versionId: versionId ?? request.versionId))
        guard let etag = head.eTag, !etag.isEmpty else {
            throw OSSClientError(.exceptionCaught, "HeadObject returned no ETag for \(request.objectKey)")
        }
        // Before the record, the temporary file or any GET: ciphertext is never written where plaintext was meant.
        if !request.acceptsCiphertext,
            let refusal = OSSClientError.ciphertextRefusal(
                headers: head.headers, bucket: request.bucketName, key: request.objectKey)
        {
            throw refusal
        }
        return OSSObjectIdentity(
            etag: etag, size: head.contentLength, lastModified: head.headers["last-modified"], crc64: head.crc64,
            versionId: head.versionId)
    }

    func commit(from: String, to: String) async throws {
        if handlePath != from {
            await closeHandle()
            try await openHandle(path: from)
        }
        if let handle {
            // records: F_FULLFSYNC on Darwin (OSSDurableFile), off the cooperative pool.
            try await Self.ignoringCancellation { try await handle.sync() }
        }
        await closeHandle()
        // records: durable rename (sync, rename, directory sync) off the cooperative pool.
        try await OSSBlockingIO.run { try OSSDownloadTempFileIO.commit(from: from, to: to) }
    }

    func openHandle(path: String) async throws {
        if handlePath == path, handle != nil { return }
        await closeHandle()
        let file = try await OSSFile.open(path, .update(create: false))
        handle = file
        handlePath = path
        syncTracker = OSSDownloadSyncTracker(file: file)
    }

    func closeHandle() async {
        journal?.close()
        journal = nil
        guard let handle else { return }
        self.handle = nil
        handlePath = nil
        syncTracker = nil
        if let code = handle.close() {
            logger.warning("cannot close the temporary file", metadata: ["errno": "\(code)"])
        }
    }

    /// Runs `body` in a task that does not inherit the caller's cancellation.
    static func ignoringCancellation<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await body() }.value
    }

    static func isPreconditionFailed(_ error: any Error) -> Bool {
        (error as? OSSServerError)?.statusCode == 412
    }
}

/// The headers sent with every ranged GET of a resumable download.
extension OSSDownloadEffects {
    var getHeaders: [String: String] {
        (try? OSSTrafficLimit.merged(request.headers, limit: request.trafficLimit)) ?? request.headers
    }
}
