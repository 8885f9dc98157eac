import NIOConcurrencyHelpers

/// Saves a transfer's records in the background while its parts move, always the latest one: a record asked for
/// while another is being saved replaces any record still waiting, so saves never queue up behind a slow disk
/// sync. Each record is the whole state, so skipping one loses nothing.
///
/// The ``OSSTransferDriver`` hands records over with ``submit(_:)`` and never waits for them, except through
/// ``flush()``: before any step that depends on what the record says (commit, delete, the end of the parts).
/// A failed save is kept and thrown by the next ``flush()`` (and read by ``failure``); later records are dropped.
/// A save runs to its end even when the transfer is cancelled (a confirmed part is worth recording).
///
/// With a `minimumInterval`, a save starts at least that long after the previous one started (uploads: a part
/// missing from the record at a kill is found by ListParts, so saving ten times a second is plenty, and
/// encoding a record of hundreds of parts for every part would cost more than sending them); ``flush()`` does not
/// wait for the interval.
final class OSSTransferRecordWriter<Record: Sendable>: Sendable {
    private struct State {
        var waiting: Record?
        var running: Task<Void, Never>?
        var failure: (any Error)?
    }

    private let state = NIOLockedValueBox(State())
    private let save: @Sendable (Record) async throws -> Void
    private let minimumInterval: Duration

    init(minimumInterval: Duration = .zero, save: @escaping @Sendable (Record) async throws -> Void) {
        self.minimumInterval = minimumInterval
        self.save = save
    }

    /// Saves `record` as soon as the save in progress (if any) ends, unless a newer record replaces it first.
    func submit(_ record: Record) {
        state.withLockedValue { state in
            guard state.failure == nil else { return }
            state.waiting = record
            if state.running == nil {
                state.running = Task { await self.drain() }
            }
        }
    }

    /// The first save that failed, if any.
    var failure: (any Error)? { state.withLockedValue { $0.failure } }

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
            let next = state.withLockedValue { state -> Record? in
                guard let record = state.waiting, state.failure == nil else {
                    state.waiting = nil
                    state.running = nil
                    return nil
                }
                state.waiting = nil
                return record
            }
            guard let record = next else { return }
            last = .now
            do {
                try await save(record)
            } catch {
                state.withLockedValue { if $0.failure == nil { $0.failure = error } }
            }
        }
    }
}
