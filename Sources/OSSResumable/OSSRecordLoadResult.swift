/// The outcome of loading a record for resuming.
package enum OSSRecordLoadResult<Record: OSSTransferRecord>: Sendable, Hashable {
    /// No record: start fresh.
    case none
    /// A well-formed record (it may still belong to another transfer or describe a changed file).
    case loaded(Record)
    /// A record exists but cannot be used (corrupt, foreign, unsupported, unreadable): start fresh, log a warning.
    case unusable(OSSResumableError)
}
