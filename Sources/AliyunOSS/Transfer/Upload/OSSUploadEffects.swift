#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import OSSResumable

/// One call of `resumableUpload`: checks the request, takes the record's lock, loads the record, and runs
/// ``OSSUploadStateMachine`` with the ``OSSTransferDriver``; it is the driver's upload effects
/// (`+OSSTransferEffects`): InitiateMultipartUpload, ListParts, UploadPart, Complete, Abort and the record.
///
/// Owned by a single task (the driver's): the record store is only touched from it, so every record write is
/// serialised (in part-confirmation order) and atomic. Part uploads run in child tasks that only send bytes and
/// return the part's ETag and CRCs.
final class OSSUploadEffects {
    let client: OSSClient
    let request: OSSResumableUploadRequest
    let filePath: String
    /// Part size, `threadNum`, CRC mode.
    let settings: OSSTransferSettings
    /// records: where the file and the record are, relative to the request's base directory (portable records).
    let location: OSSUploadLocation
    /// The record of the resume token the call was given, checked against the request.
    let resumeRecord: OSSUploadRecord?
    var logger: Logger { client.configuration.logger }

    /// The machine the driver starts with.
    let machine: OSSUploadStateMachine
    /// The answer of Complete (or of the HEAD that adopted a lost completion).
    var completion: OSSCompleteMultipartUploadResult?
    /// Progress, confirmed parts or bytes.
    let progress: OSSTransferProgressReporter
    /// Where the record lives; `nil` without a record directory.
    let records: OSSTransferRecordSlot?
    /// parity-b: the callback headers sent on Complete and kept in the record (the request's, else the loaded record's).
    var callbackHeaders: [String: String]?
    /// Whether the upload is sequential: the request says so, or the record it resumes does.
    var sequential: Bool

    init(client: OSSClient, request: OSSResumableUploadRequest, token: OSSResumeToken? = nil) throws {
        let settings = try OSSTransferSettings(operation: "resumableUpload", request: request, client: client)
        guard request.uploadingFileURL.isFileURL, !request.uploadingFileURL.path.isEmpty else {
            throw OSSClientError(.invalidArgument, "uploadingFileURL must be a file URL")
        }
        _ = try OSSTrafficLimit.headers(request.trafficLimit)  // parity-b: a precise error for a bad limit
        self.client = client
        self.request = request
        self.settings = settings
        let (partSize, crcMode) = (settings.partSize, settings.crcMode)
        // records: file path, record store and record name come from OSSUploadLocation (base directory aware).
        let location = try OSSUploadLocation(request: request, requestedPartSize: partSize, crcMode: crcMode)
        self.location = location
        filePath = location.filePath
        progress = OSSTransferProgressReporter(handler: request.uploadProgress, granularity: request.progressGranularity)
        records = settings.records(store: location.store, name: location.recordName, noun: "upload")
        // records: the token is checked and resolved against the base directory by the location.
        resumeRecord = try token.map { [partSize, crcMode] in
            try location.resumeRecord(
                from: $0, bucket: request.bucketName, key: request.objectKey, requestedPartSize: partSize, crcMode: crcMode)
        }
        callbackHeaders = try Self.callbackHeaders(for: request)  // parity-b: callback in the record
        sequential = request.sequential
        machine = OSSUploadStateMachine(
            configuration: .init(
                bucket: request.bucketName, key: request.objectKey, filePath: filePath, requestedPartSize: partSize,
                crcMode: crcMode, deleteUploadIdOnCancelling: request.deleteUploadIdOnCancelling,
                persistsRecord: location.store != nil))
    }

    func run() async throws -> OSSResumableUploadResult {
        let identity: OSSFileIdentity
        do {
            identity = try OSSFileIdentity.capture(path: filePath)
        } catch {
            throw OSSClientError(error, in: .upload)
        }
        try OSSResumableUploadRequest.checkPartSize(request.partSize, fileSize: identity.size)
        // The lock keeps a second process off the same record (and upload id) while this one runs. A token
        // replaces whatever record is on disk (under the lock), or stands in for one in memory.
        let opened = try OSSTransferOpenRecord(records, resuming: resumeRecord, map: { OSSClientError($0, in: .upload) })
        defer { withExtendedLifetime(opened.lock) {} }
        let loaded = opened.loaded
        adoptRecordedCallback(loaded)  // parity-b: a resumed upload sends the recorded callback
        if case .loaded(let record) = loaded, record.sequential == true { sequential = true }
        // A request cancelled before it starts still goes through the machine: it never initiates or lists, and
        // a cancel then means what it means for the loaded record.
        let driver = OSSTransferDriver(
            machine: machine, effects: self, cancellation: request.cancellation,
            threadNum: sequential ? 1 : settings.threadNum,  // sequential: parts in ascending order
            admission: .streamed(client.scheduler, priority: settings.priority))
        guard case .finished(let crc) = await driver.run(.start(record: loaded, file: identity)) else {
            throw driver.error(
                operation: "resumableUpload", noun: "upload", kept: "the upload id and the record",
                // records: relative paths with a base directory; parity-b: the callback travels with the token.
                token: { driver.machine.record.map { location.token(for: $0.withCallbackHeaders(callbackHeaders).withSequential(sequential)) } },
                map: { OSSClientError($0, in: .upload) })
        }
        guard let completion, let uploadId = driver.machine.uploadId, let plan = driver.machine.plan else {
            throw OSSClientError(.exceptionCaught, "resumableUpload finished without a completed upload")
        }
        return OSSResumableUploadResult(
            eTag: completion.eTag, crc64: crc, requestId: completion.requestId,
            callbackBody: completion.serverCallbackBody, uploadId: uploadId, resumedBytes: driver.machine.resumedBytes,
            partSize: plan.partSize, totalBytes: plan.totalLength)
    }

    // MARK: - Remote steps

    func initiate() async throws -> String {
        let result = try await client.initiateMultipartUpload(
            OSSInitiateMultipartUploadRequest(
                bucketName: request.bucketName, objectKey: request.objectKey,
                // parity-b: Content-Type guessed from the local file's extension, then the key's.
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
                // parity-b: the callback comes from the request or, when resumed, from the record.
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
