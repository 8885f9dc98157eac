import OSSResumable

/// A transfer's record, opened for one run: the lock held for the run, and the record to start from.
struct OSSTransferOpenRecord<Record: OSSTransferRecord> {
    /// Held until the run ends; `nil` without a record directory.
    let lock: OSSRecordLock?
    let loaded: OSSRecordLoadResult<Record>
    /// What could still be read from a record that is there but unusable (its upload id, to abort that upload).
    let salvage: OSSRecordSalvage

    /// Takes the record's lock (the kernel releases it if this process dies; a second process or request on the
    /// same transfer fails at once) and the record to start from: the resume token's record, saved over the one
    /// on disk (or, without a record directory, kept in memory), else the stored one.
    ///
    /// - Throws: what `map` makes of the store's error (`transferInUse` for a lock held elsewhere).
    init(
        _ records: OSSTransferRecordSlot?, resuming token: Record?, map: (OSSResumableError) -> OSSClientError
    ) throws {
        guard let records else {
            lock = nil
            loaded = token.map { .loaded($0) } ?? .none
            salvage = OSSRecordSalvage()
            return
        }
        do {
            lock = try records.store.lock(name: records.name)
            if let token {
                try records.store.save(token, name: records.name)
                loaded = .loaded(token)
            } else {
                loaded = records.store.loadResult(Record.self, name: records.name)
            }
            if case .unusable = loaded {
                salvage = records.store.salvage(name: records.name)
            } else {
                salvage = OSSRecordSalvage()
            }
        } catch {
            throw map(error)
        }
    }
}
