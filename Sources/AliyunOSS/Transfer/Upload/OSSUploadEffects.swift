#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import OSSResumable

/// The I/O of a resumable upload, as the ``OSSTransferDriver`` and the ``OSSUploadRun`` that built it call for:
/// InitiateMultipartUpload, ListParts, UploadPart (`+Send`), Complete, Abort, the HEAD of a lost completion
/// (`+LostCompletion`) and the record; `+OSSTransferEffects` maps the upload machine's actions onto them. It
/// knows nothing of the driver or of the run.
///
/// Owned by a single task (the driver's): the record store is only touched from it, so every record write is
/// serialised (in part-confirmation order) and atomic. Part uploads run in child tasks that only send bytes and
/// return the part's ETag and CRCs.
final class OSSUploadEffects {
    let client: OSSClient
    let request: OSSResumableUploadRequest
    let filePath: String
    /// The CRC mode (and the rest of the checked settings).
    let settings: OSSTransferSettings
    var logger: Logger { client.configuration.logger }

    /// The answer of Complete (or of the HEAD that adopted a lost completion).
    var completion: OSSCompleteMultipartUploadResult?
    /// Progress, confirmed parts or bytes.
    let progress: OSSTransferProgressReporter
    /// Where the record lives; `nil` without a record directory.
    let records: OSSTransferRecordSlot?
    /// The callback headers sent on Complete and kept in the record (the request's, else the loaded record's).
    let callbackHeaders: [String: String]?
    /// Whether the upload is sequential: the request says so, or the record it resumes does.
    let sequential: Bool
    /// What could still be read from an unusable record: the upload it names is aborted (the machine decides).
    var salvage = OSSRecordSalvage()

    init(
        client: OSSClient, request: OSSResumableUploadRequest, filePath: String, settings: OSSTransferSettings,
        records: OSSTransferRecordSlot?, callbackHeaders: [String: String]?, sequential: Bool
    ) {
        self.client = client
        self.request = request
        self.filePath = filePath
        self.settings = settings
        self.records = records
        self.callbackHeaders = callbackHeaders
        self.sequential = sequential
        progress = OSSTransferProgressReporter(handler: request.uploadProgress, granularity: request.progressGranularity)
    }

    // MARK: - Remote steps

    func initiate() async throws -> String {
        let result = try await client.initiateMultipartUpload(
            OSSInitiateMultipartUploadRequest(
                bucketName: request.bucketName, objectKey: request.objectKey,
                // Content-Type guessed from the local file's extension, then the key's.
                contentType: request.contentType
                    ?? request.completeMetaHeader.first { $0.key.lowercased() == "content-type" }?.value
                    ?? OSSMimeType.guess(request.uploadingFileURL.lastPathComponent, request.objectKey),
                metadata: request.completeMetaHeader, sequential: sequential))
        return result.uploadId
    }

    func listAllParts(uploadId: String) async throws -> [OSSUploadStateMachine.ServerPart] {
        try await client.listAllParts(bucket: request.bucketName, key: request.objectKey, uploadId: uploadId)  // bg: shared
    }

    /// Parts the server lists but the record does not know (sent just before a crash, or refused by the CRC check
    /// of an earlier run) are only worth reusing if they hold this file's bytes: in CRC mode each one's range is
    /// read (CRC-64 only, no network) and a part is kept only when the server's CRC-64 equals the local one.
    /// Dropped parts are sent again. Recorded parts were verified when they were confirmed.
    func verifyUnrecordedParts(_ listed: [OSSUploadStateMachine.ServerPart], machine: OSSUploadStateMachine)
        async throws -> [OSSUploadStateMachine.ServerPart]
    {
        guard settings.crcMode == .enabled, let plan = machine.plan else { return listed }
        let recorded = Set(machine.recordedParts.map(\.number))
        var kept: [OSSUploadStateMachine.ServerPart] = []
        for part in listed {
            guard !recorded.contains(part.number), let planned = plan.part(number: part.number),
                planned.length == part.size
            else {
                kept.append(part)
                continue
            }
            guard let serverCRC = part.crc64 else { continue }
            try Task.checkCancellation()
            let local = try await OSSFileDigest.crc64(path: filePath, offset: planned.offset, length: planned.length)
            if local == serverCRC {
                kept.append(part)
            } else {
                logger.info(
                    "a part on the server does not hold this file's bytes; sending it again",
                    metadata: ["part": "\(part.number)", "key": "\(request.objectKey)"])
            }
        }
        return kept
    }

    func complete(uploadId: String, parts: [OSSUploadStateMachine.CompletePart]) async throws
        -> OSSCompleteMultipartUploadResult
    {
        try await client.completeMultipartUpload(
            OSSCompleteMultipartUploadRequest(
                bucketName: request.bucketName, objectKey: request.objectKey, uploadId: uploadId,
                parts: parts.map { OSSPartInfo(partNumber: $0.number, eTag: $0.etag) },
                // The callback comes from the request or, when resumed, from the record.
                headers: callbackHeaders ?? [:]))
    }

    /// AbortMultipartUpload in a fresh unstructured task, awaited: requests made from a cancelled task would
    /// fail at once, and the abort must happen. Its failure (NoSuchUpload included) is only logged.
    func abort(uploadId: String) async {
        let client = self.client
        let abortRequest = OSSAbortMultipartUploadRequest(
            bucketName: request.bucketName, objectKey: request.objectKey, uploadId: uploadId)
        let task = Task { try await client.abortMultipartUpload(abortRequest) }
        do {
            _ = try await task.value
        } catch {
            logger.warning(
                "cannot abort the multipart upload", metadata: ["uploadId": "\(uploadId)", "error": "\(error)"])
        }
    }
}
