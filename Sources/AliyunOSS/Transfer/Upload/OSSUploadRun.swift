#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

/// One call of `resumableUpload`, set up and run. `init` checks the request (settings, file URL, traffic limit,
/// callback, resume token) and plans the state machine; ``run()`` captures the file's identity, takes the
/// record's lock, loads the record, builds the upload's effects, and hands the machine and the effects to an
/// ``OSSTransferDriver``, then turns how it ended into the result or the error.
///
/// The dependency runs one way: the run builds the effects and the driver; the effects never see either.
struct OSSUploadRun {
    let client: OSSClient
    let request: OSSResumableUploadRequest
    /// Part size, `threadNum`, CRC mode.
    let settings: OSSTransferSettings
    /// records: where the file and the record are, relative to the request's base directory (portable records).
    let location: OSSUploadLocation
    /// The record of the resume token the call was given, checked against the request.
    let resumeRecord: OSSUploadRecord?
    /// The request's callback headers, `nil` without a callback.
    let callbackHeaders: [String: String]?
    /// The machine the driver starts with.
    let machine: OSSUploadStateMachine

    init(client: OSSClient, request: OSSResumableUploadRequest, token: OSSResumeToken? = nil) throws {
        let settings = try OSSTransferSettings(operation: "resumableUpload", request: request, client: client)
        guard request.uploadingFileURL.isFileURL, !request.uploadingFileURL.path.isEmpty else {
            throw OSSClientError(.invalidArgument, "uploadingFileURL must be a file URL")
        }
        _ = try OSSTrafficLimit.headers(request.trafficLimit)  // a precise error for a bad limit
        self.client = client
        self.request = request
        self.settings = settings
        let (partSize, crcMode) = (settings.partSize, settings.crcMode)
        // records: file path, record store and record name come from OSSUploadLocation (base directory aware).
        let location = try OSSUploadLocation(request: request, requestedPartSize: partSize, crcMode: crcMode)
        self.location = location
        // records: the token is checked and resolved against the base directory by the location.
        resumeRecord = try token.map { [partSize, crcMode] in
            try location.resumeRecord(
                from: $0, bucket: request.bucketName, key: request.objectKey, requestedPartSize: partSize, crcMode: crcMode)
        }
        callbackHeaders = try Self.callbackHeaders(for: request)  // the callback is kept in the record
        machine = OSSUploadStateMachine(
            configuration: .init(
                bucket: request.bucketName, key: request.objectKey, filePath: location.filePath,
                requestedPartSize: partSize, crcMode: crcMode,
                deleteUploadIdOnCancelling: request.deleteUploadIdOnCancelling, persistsRecord: location.store != nil))
    }

    func run() async throws -> OSSResumableUploadResult {
        let identity: OSSFileIdentity
        do {
            identity = try OSSFileIdentity.capture(path: location.filePath)
        } catch {
            throw OSSClientError(error, in: .upload)
        }
        try OSSResumableUploadRequest.checkPartSize(request.partSize, fileSize: identity.size)
        // The lock keeps a second process off the same record (and upload id) while this one runs. A token
        // replaces whatever record is on disk (under the lock), or stands in for one in memory.
        let records = settings.records(store: location.store, name: location.recordName, noun: "upload")
        let opened = try OSSTransferOpenRecord(records, resuming: resumeRecord, map: { OSSClientError($0, in: .upload) })
        defer { withExtendedLifetime(opened.lock) {} }
        let loaded = opened.loaded
        // A resumed upload sends the recorded callback; a record made sequential stays sequential.
        let callbackHeaders = self.callbackHeaders ?? recordedCallback(loaded)
        var sequential = request.sequential
        if case .loaded(let record) = loaded, record.sequential == true { sequential = true }
        let effects = OSSUploadEffects(
            client: client, request: request, filePath: location.filePath, settings: settings, records: records,
            callbackHeaders: callbackHeaders, sequential: sequential)
        effects.salvage = opened.salvage
        // A request cancelled before it starts still goes through the machine: it never initiates or lists, and
        // a cancel then means what it means for the loaded record.
        let driver = OSSTransferDriver(
            machine: machine, effects: effects, cancellation: request.cancellation,
            threadNum: sequential ? 1 : settings.threadNum,  // sequential: parts in ascending order
            admission: .streamed(client.scheduler, priority: settings.priority))
        guard case .finished(let crc) = await driver.run(.start(record: loaded, file: identity, salvage: opened.salvage)) else {
            throw driver.error(
                operation: "resumableUpload", noun: "upload", kept: "the upload id and the record",
                // records: relative paths with a base directory; the callback travels with the token.
                token: { [location] in
                    driver.machine.record.map {
                        location.token(for: $0.withCallbackHeaders(callbackHeaders).withSequential(sequential))
                    }
                },
                map: { OSSClientError($0, in: .upload) })
        }
        guard let completion = effects.completion, let uploadId = driver.machine.uploadId, let plan = driver.machine.plan
        else {
            throw OSSClientError(.exceptionCaught, "resumableUpload finished without a completed upload")
        }
        return OSSResumableUploadResult(
            eTag: completion.eTag, crc64: crc, requestId: completion.requestId,
            callbackBody: completion.serverCallbackBody, uploadId: uploadId, resumedBytes: driver.machine.resumedBytes,
            partSize: plan.partSize, totalBytes: plan.totalLength)
    }

    /// The request's callback headers: the typed ``OSSResumableUploadRequest/callback``, else the raw
    /// `callbackParam` / `callbackVar` dictionaries; `nil` without a callback.
    static func callbackHeaders(for request: OSSResumableUploadRequest) throws -> [String: String]? {
        let headers = try OSSCallbackHeaders.make(
            typed: request.callback, parameters: request.callbackParam, variables: request.callbackVar)
        return headers.isEmpty ? nil : headers
    }

    /// The loaded record's callback, for a request that has none (a resumed upload, e.g. by the transfer
    /// manager), so that a resumed upload still sends it on Complete.
    func recordedCallback(_ loaded: OSSRecordLoadResult<OSSUploadRecord>) -> [String: String]? {
        guard case .loaded(let record) = loaded, record.bucket == request.bucketName,
            record.key == request.objectKey
        else { return nil }
        return record.callbackHeaders
    }
}
