
/// Saves a transfer's records in the background while its parts move, always the latest one: a record asked for
/// while another is being saved replaces any record still waiting, so saves never queue up behind a slow disk
/// sync. Each record is the whole state, so skipping one loses nothing.
///
/// The ``OSSTransferDriver`` hands records over with ``submit(_:)`` and does not wait for them, except through
/// ``flush()`` (before any step that depends on what the record says: commit, delete, the end of the parts) and,
/// for a writer that ``keepsUp``, through ``catchUp()`` before a new part starts, so that at most the parts that
/// finished during one save are missing from the record at any time. A failed save is kept and thrown by the next
/// ``flush()`` (and read by ``failure``); later records are dropped. A save runs to its end even when the transfer
/// is cancelled (a confirmed part is worth recording).
///
/// With a `minimumInterval`, a save starts at least that long after the previous one started (uploads: a part
/// missing from the record at a kill is found by ListParts, so saving ten times a second is plenty, and encoding
/// a record of hundreds of parts for every part would cost more than sending them); ``flush()`` does not wait for
/// the interval.
final class OSSTransferRecordWriter<Record: Sendable>: Sendable {
    private struct State {
        var waiting: Record?
        var running: Task<Void, Never>?
        var failure: (any Error)?
        /// How many records were submitted, and the number of the newest one saved.
        var submitted = 0
        var saved = 0
        /// The number of the waiting record.
        var waitingNumber = 0
        /// ``catchUp()`` callers, with the record number each waits for.
        var waiters: [(number: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = OSSLockedValue(State())
    private let save: @Sendable (Record) async throws -> Void
    private let minimumInterval: Duration
    /// Whether new parts wait (``catchUp()``) until the writer is at most one record behind.
    let keepsUp: Bool

    init(
        minimumInterval: Duration = .zero, keepsUp: Bool = false,
        save: @escaping @Sendable (Record) async throws -> Void
    ) {
        self.minimumInterval = minimumInterval
        self.keepsUp = keepsUp
        self.save = save
    }

    /// Saves `record` as soon as the save in progress (if any) ends, unless a newer record replaces it first.
    func submit(_ record: Record) {
        state.withLockedValue { state in
            guard state.failure == nil else { return }
            state.submitted += 1
            state.waiting = record
            state.waitingNumber = state.submitted
            if state.running == nil {
                state.running = Task { await self.drain() }
            }
        }
    }

    /// The first save that failed, if any.
    var failure: (any Error)? { state.withLockedValue { $0.failure } }

    /// Waits until every record but the newest is saved (the newest may still be waiting or being saved), or a
    /// save failed.
    func catchUp() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state -> Bool in
                let target = state.submitted - 1
                if state.failure != nil || state.saved >= target { return true }
                state.waiters.append((target, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Waits until every submitted record is saved (or dropped after a failure); throws the first failure.
    func flush() async throws {
        if let running = state.withLockedValue({ $0.running }) {
            running.cancel()  // skips the interval, not the save
            await running.value
        }
        if let failure { throw failure }
    }

    /// Saves the waiting record until none is left.
    private func drain() async {
        var last: ContinuousClock.Instant?
        while true {
            if let last, minimumInterval > .zero {
                try? await Task.sleep(until: last.advanced(by: minimumInterval), clock: .continuous)
            }
            let next = state.withLockedValue { state -> (Record, Int)? in
                guard let record = state.waiting, state.failure == nil else {
                    state.waiting = nil
                    state.running = nil
                    return nil
                }
                state.waiting = nil
                return (record, state.waitingNumber)
            }
            guard let (record, number) = next else {
                resumeWaiters(all: true)
                return
            }
            last = .now
            do {
                try await save(record)
                state.withLockedValue { $0.saved = max($0.saved, number) }
                resumeWaiters(all: false)
            } catch {
                state.withLockedValue { if $0.failure == nil { $0.failure = error } }
                resumeWaiters(all: true)
            }
        }
    }

    /// Resumes the ``catchUp()`` callers whose record is saved (or all of them).
    private func resumeWaiters(all: Bool) {
        let ready = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            let saved = state.saved
            let ready = state.waiters.filter { all || $0.number <= saved }.map(\.continuation)
            state.waiters.removeAll { all || $0.number <= saved }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}
