import Dispatch
import OSSResumable

/// Runs blocking file work (syncs, renames of records and temporary files) on a Dispatch thread, never on Swift's
/// cooperative pool: a sync that a busy disk stretches to seconds would otherwise hold one of its few threads
/// (two on a 2-core machine) and stall every other task of the process meanwhile. The work always runs to its
/// end, also when the calling task is cancelled.
enum OSSBlockingIO {
    static func run<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result: Result<Value, Failure> = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: Result { () throws(Failure) in try body() })
            }
        }
        return try result.get()
    }
}

extension OSSRecordStore {
    /// ``OSSRecordStore/save(_:name:)`` off the cooperative pool (``OSSBlockingIO``): a save syncs the record and
    /// its directory. The save always runs to its end, also when the calling task is cancelled: a confirmed part
    /// is worth recording.
    func saveOffCooperativePool<Record: OSSTransferRecord>(_ record: Record, name: String) async throws(OSSResumableError) {
        try await OSSBlockingIO.run { () throws(OSSResumableError) in try save(record, name: name) }
    }
}
