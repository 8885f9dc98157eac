@testable import AliyunOSS
import OSSResumable

/// The part size of the scripted uploads (the smallest an upload plans).
let scriptedPartSize: Int64 = 102_400

/// The identity of a scripted file of `parts` parts (never read: the scripted effects move no bytes).
func scriptedFile(parts: Int) -> OSSFileIdentity {
    OSSFileIdentity(
        size: Int64(parts) * scriptedPartSize, modificationTimeNanoseconds: 1, inode: 1, device: 1,
        fingerprint: OSSFileFingerprint(samples: []))
}

/// An upload state machine for a scripted file that keeps a record.
func scriptedUploadMachine(deleteUploadIdOnCancelling: Bool = true) -> OSSUploadStateMachine {
    OSSUploadStateMachine(
        configuration: .init(
            bucket: "bkt", key: "scripted", filePath: "/scripted/file", requestedPartSize: scriptedPartSize,
            crcMode: .enabled, deleteUploadIdOnCancelling: deleteUploadIdOnCancelling, persistsRecord: true))
}

/// The record of an earlier run of the scripted upload that confirmed `confirmed`.
func scriptedRecord(parts: Int, confirmed: [Int]) -> OSSUploadRecord {
    OSSUploadRecord(
        bucket: "bkt", key: "scripted", filePath: "/scripted/file", fileIdentity: scriptedFile(parts: parts),
        requestedPartSize: scriptedPartSize, partSize: scriptedPartSize, crcMode: .enabled,
        uploadId: ScriptedUploadEffects.uploadId,
        parts: confirmed.map { .init(number: $0, size: scriptedPartSize, crc64: UInt64($0), etag: "etag-\($0)") })
}

/// Runs the driver over `effects` for a scripted upload of `parts` parts.
func runScriptedUpload(
    _ effects: ScriptedUploadEffects, parts: Int, threadNum: Int = 1, partAttempts: Int = 1,
    deleteUploadIdOnCancelling: Bool = true, record: OSSRecordLoadResult<OSSUploadRecord> = .none
) async -> (end: OSSTransferEnd, driver: OSSTransferDriver<ScriptedUploadEffects>) {
    let driver = OSSTransferDriver(
        machine: scriptedUploadMachine(deleteUploadIdOnCancelling: deleteUploadIdOnCancelling), effects: effects,
        cancellation: effects.script.cancellation, threadNum: threadNum, partAttempts: partAttempts)
    let end = await driver.run(.start(record: record, file: scriptedFile(parts: parts)))
    return (end, driver)
}

extension OSSTransferEnd {
    var name: String {
        switch self {
        case .finished: "finished"
        case .cancelled: "cancelled"
        case .paused: "paused"
        case .failed(let error): "failed(\(error))"
        case .operationFailed: "operationFailed"
        }
    }
}
