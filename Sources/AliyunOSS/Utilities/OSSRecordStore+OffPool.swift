import Dispatch
import OSSResumable

extension OSSRecordStore {
    /// ``OSSRecordStore/save(_:name:)`` on a Dispatch thread. A save fsyncs the record and its directory, which a
    /// busy disk can stretch to seconds; done inline it would hold one of the few threads of Swift's cooperative
    /// pool (two on a 2-core machine) and stall every other task of the process meanwhile. The save always runs to
    /// its end, also when the calling task is cancelled: a confirmed part is worth recording.
    func saveOffCooperativePool<Record: OSSTransferRecord>(_ record: Record, name: String) async throws(OSSResumableError) {
        let result: Result<Void, OSSResumableError> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(OSSResumableError) in try save(record, name: name) })
            }
        }
        try result.get()
    }
}
