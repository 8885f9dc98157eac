import OSSResumable

/// A transfer's record, opened for a run (``OSSTransferRecordSlot/open(resuming:)``): the lock held for the run,
/// and the record to start from.
struct OSSTransferOpenRecord<Record: OSSTransferRecord> {
    /// Held until the run ends.
    let lock: OSSRecordLock
    let loaded: OSSRecordLoadResult<Record>

    /// The record to start from without a record directory: the resume token's record, in memory, or none.
    static func inMemory(_ token: Record?) -> OSSRecordLoadResult<Record> {
        token.map { .loaded($0) } ?? .none
    }
}
