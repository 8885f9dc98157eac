import OSSResumable

extension OSSRecordStore {
    /// ``OSSRecordStore/save(_:name:)`` off the cooperative pool (``OSSBlockingIO``): a save syncs the record and
    /// its directory. The save always runs to its end, also when the calling task is cancelled: a confirmed part
    /// is worth recording.
    func saveOffCooperativePool<Record: OSSTransferRecord>(_ record: Record, name: String) async throws(OSSResumableError) {
        try await OSSBlockingIO.run { () throws(OSSResumableError) in try save(record, name: name) }
    }
}
