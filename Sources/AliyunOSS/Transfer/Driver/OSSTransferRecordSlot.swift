import Logging
import OSSResumable

/// Where one transfer's record lives: a store and a name. The record effects both transfers share.
struct OSSTransferRecordSlot: Sendable {
    let store: OSSRecordStore
    let name: String
    /// `upload` or `download`, for the log.
    let noun: String
    let logger: Logger

    /// Saves `record` atomically, off the cooperative pool; the save runs to its end even when the task is
    /// cancelled (a confirmed part is worth recording).
    func save<Record: OSSTransferRecord>(_ record: Record) async throws(OSSResumableError) {
        try await store.saveOffCooperativePool(record, name: name)
        Self.afterEachSave?(name)
    }

    /// Called with the record's name after each record a transfer started in this task saves (tests only: a test
    /// that takes the disk away from a running transfer does so at a point it controls, right after a record is on
    /// disk, rather than when progress happens to pass a mark). Record writers run in tasks created by the
    /// transfer's task, which inherit the value.
    @TaskLocal static var afterEachSave: (@Sendable (String) -> Void)?

    /// Removes the record; a failure is only logged.
    func delete() {
        do {
            try store.delete(name: name)
        } catch {
            logger.warning("cannot remove the \(noun) record", metadata: ["error": "\(error)"])
        }
    }

    /// The record's full path.
    var path: String { store.recordPath(name: name) }

    /// Says why the loaded record cannot be used and what happens next (the log, as a warning, and the request's
    /// handler), then removes it.
    func discard(_ notice: OSSRecordNotice, to handler: (@Sendable (OSSRecordNotice) -> Void)?) {
        logger.warning("\(notice.description)")
        handler?(notice)
        delete()
    }
}
