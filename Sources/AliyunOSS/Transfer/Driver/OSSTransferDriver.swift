import OSSResumable

/// Runs a pure transfer state machine (``OSSTransferMachine``) through its effects (``OSSTransferEffects``): the
/// one driver of resumable uploads and downloads. The caller (``OSSUploadRun``, ``OSSDownloadRun``) builds the
/// machine and the effects and hands both over; the effects never see the driver.
///
/// A flat loop over a queue of actions, no recursion: an action the machine waits on (an
/// ``OSSTransferStep/ask(restartsProgress:)``) or a failed step replaces the rest of the queue with the machine's
/// answer. Pause and cancel are checked before every waited-on step and before parts start. While parts move,
/// a pure ``OSSPartQueue`` makes the part loop's decisions (how many parts are in flight: `threadNum`, within
/// what the client's scheduler admits; how often a part is tried: `partAttempts`; when the parts stop; which
/// failure counts; when checkpoints are fed and the record writer waited for) and the driver only executes its
/// actions. Records are saved in confirmation order, one at a time, and progress is reported in order, never
/// under a lock, never backwards.
///
/// Owned by a single task: the machine and the effects are only touched from it; parts move in child tasks that
/// only run the effects' ``OSSTransferEffects/partMover(for:)`` closure.
final class OSSTransferDriver<Effects: OSSTransferEffects> {
    typealias Machine = Effects.Machine
    typealias Action = Machine.Action

    let effects: Effects
    let cancellation: OSSTransferCancellation
    /// The most parts in flight at once.
    let threadNum: Int
    /// How often one part is tried when it fails with a retryable error (1: the client's own retries suffice).
    let partAttempts: Int
    /// The client's scheduler each part waits for before it moves; `nil` moves parts at once (scripted tests).
    let admission: OSSPartAdmission?
    /// The machine, as the run left it.
    private(set) var machine: Machine
    /// How the run ended; `nil` until it did.
    var outcome: OSSTransferEnd?
    /// The first error that made the transfer fail, rethrown for ``OSSTransferEnd/operationFailed``.
    var cause: (any Error)?

    init(
        machine: Machine, effects: Effects, cancellation: OSSTransferCancellation, threadNum: Int,
        partAttempts: Int = 1, admission: OSSPartAdmission? = nil
    ) {
        self.admission = admission
        self.machine = machine
        self.effects = effects
        self.cancellation = cancellation
        self.threadNum = max(1, threadNum)
        self.partAttempts = max(1, partAttempts)
    }

    /// Feeds `event` (the machine's start) and performs actions until the machine is done. A machine that stops
    /// without saying how (a step failed after it was done) ends in ``OSSTransferEnd/operationFailed``.
    @discardableResult
    func run(_ event: Machine.Event) async -> OSSTransferEnd {
        var queue = machine.handle(event)[...]
        while outcome == nil, let action = queue.popFirst() {
            if let next = await step(action) { queue = next[...] }
        }
        let result = outcome ?? .operationFailed
        outcome = result
        return result
    }

    /// Performs one action. Returns the actions that replace the rest of the queue (the machine's answer to a
    /// waited-on step or to a failure), or `nil` to go on with the queue.
    private func step(_ action: Action) async -> [Action]? {
        switch Machine.step(for: action) {
        case .ask(let restartsProgress):
            if isStopping { return machine.handle(stopEvent) }
            if restartsProgress { effects.progress.restart() }
            do {
                let answer = try await effects.answer(action, machine: machine)
                return machine.handle(answer)
            } catch {
                return fail(error)
            }
        case .transferParts(let parts):
            if isStopping { return machine.handle(stopEvent) }
            let mover: Effects.PartMover
            do {
                mover = try await effects.partMover(for: action)
            } catch {
                return fail(error)
            }
            return await transfer(parts, mover: mover)
        default:
            return await local(action)
        }
    }

    /// Performs an action that neither waits for an answer nor moves parts. Returns the machine's answer when
    /// it failed, `nil` when it went through.
    func local(_ action: Action) async -> [Action]? {
        switch Machine.step(for: action) {
        case .perform:
            do {
                try await effects.perform(action)
            } catch {
                return fail(error)
            }
        case .saveRecord(let record):
            do {
                try await effects.save(record)
            } catch {
                return fail(error)
            }
        case .deleteRecord:
            effects.deleteRecord()
        case .discardRecord(let reason):
            effects.discardRecord(reason: reason)
        case .reportProgress(let step, let total, let expected):
            effects.progress.confirmed(step: step, total: total, expected: expected)
        case .stop(let result):
            outcome = result
        case .ask, .transferParts:
            preconditionFailure("\(action) is not a local step")
        }
        return nil
    }

    // MARK: - Stopping and failing

    /// Whether the run must stop: the request was cancelled or paused, or the caller's task was cancelled.
    var isStopping: Bool { cancellation.isStopped || Task.isCancelled }

    /// What stopping means for the machine: a pause when the request was paused, a cancel otherwise.
    var stopEvent: Machine.Event { cancellation.isPaused ? Machine.pausedEvent : Machine.cancelledEvent }

    /// Feeds the machine what `error` means: a stop (a cancellation, or any failure while stopping), news, or
    /// a failure (kept as the cause when it is the first).
    func fail(_ error: any Error) -> [Action] {
        if error.isTransferCancellation || isStopping {
            if cause == nil { cause = error }
            return machine.handle(stopEvent)
        }
        switch effects.failureAnswer(for: error) {
        case .failure(let event):
            if cause == nil { cause = error }
            return machine.handle(event)
        case .news(let event):
            return machine.handle(event)
        }
    }

    /// Feeds the machine an event that arrived while parts move (a part's confirmation).
    func handle(_ event: Machine.Event) -> [Action] { machine.handle(event) }
}
