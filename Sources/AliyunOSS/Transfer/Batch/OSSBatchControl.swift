/// How a batch is being stopped from outside, and the pause hooks of its resumable transfers in flight.
final class OSSBatchControl: Sendable {
    enum Stop: Sendable, Equatable {
        /// Keep everything for a resume.
        case pause
        /// Remove the batch once it has stopped.
        case cancel
    }

    private struct State {
        var stop: Stop?
        var nextId: UInt64 = 0
        var pausers: [UInt64: @Sendable () -> Void] = [:]
        var task: (@Sendable () -> Void)?
    }

    private let state = OSSLockedValue(State())

    var stop: Stop? { state.withLockedValue { $0.stop } }

    /// The run's own task, cancelled by ``request(_:)`` after the transfers were paused.
    func attach(cancelRun: @escaping @Sendable () -> Void) {
        let stopped = state.withLockedValue { state -> Bool in
            state.task = cancelRun
            return state.stop != nil
        }
        if stopped { cancelRun() }
    }

    /// Stops the batch: the resumable transfers in flight are paused first (they keep their upload ids, temporary
    /// files and records), then the run is cancelled. The first request wins, but a cancel overrides a pause.
    func request(_ stop: Stop) {
        let (pausers, task) = state.withLockedValue { state -> ([@Sendable () -> Void], (@Sendable () -> Void)?) in
            if state.stop == nil || stop == .cancel { state.stop = stop }
            defer { state.pausers = [:] }
            return (Array(state.pausers.values), state.task)
        }
        for pause in pausers { pause() }
        task?()
    }

    /// Pauses the transfers in flight without stopping the run's bookkeeping (a stop at the first failure).
    func pauseTransfers() {
        let pausers = state.withLockedValue { state -> [@Sendable () -> Void] in
            defer { state.pausers = [:] }
            return Array(state.pausers.values)
        }
        for pause in pausers { pause() }
    }

    /// Runs `body` with `pause` registered, so a stop pauses the transfer; a batch already stopping pauses it at
    /// once.
    func withPauseHook<T>(_ pause: @escaping @Sendable () -> Void, _ body: () async throws -> T) async rethrows -> T {
        let id = state.withLockedValue { state -> UInt64? in
            guard state.stop == nil else { return nil }
            state.nextId += 1
            state.pausers[state.nextId] = pause
            return state.nextId
        }
        if id == nil { pause() }
        defer {
            if let id { _ = state.withLockedValue { $0.pausers.removeValue(forKey: id) } }
        }
        return try await body()
    }
}

/// The items a run has started, in key order, and the mark: the last key before which every one has ended.
///
/// The run never opens more than ``capacity`` items past the mark, which bounds what a resume has to remember
/// (the keys ended past the last mark).
struct OSSBatchWindow {
    let capacity: Int
    private var keys: [String] = []
    private var ended: [Bool] = []
    private var head = 0
    private var firstSequence: UInt64 = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Items open (started, or ended behind one still running).
    var count: Int { keys.count - head }

    var isFull: Bool { count >= capacity }

    /// Opens an item; returns its sequence number.
    mutating func open(_ key: String) -> UInt64 {
        keys.append(key)
        ended.append(false)
        return firstSequence + UInt64(keys.count - 1)
    }

    /// Ends the item `sequence`; returns the new mark when it moved.
    mutating func end(_ sequence: UInt64) -> String? {
        let index = Int(sequence - firstSequence)
        guard index >= head, index < ended.count else { return nil }
        ended[index] = true
        var mark: String?
        while head < ended.count, ended[head] {
            mark = keys[head]
            head += 1
        }
        if head > 1024, head * 2 > keys.count {
            keys.removeFirst(head)
            ended.removeFirst(head)
            firstSequence += UInt64(head)
            head = 0
        }
        return mark
    }
}

/// One file's bytes as its transfer reports them: credited to the batch's progress once each, never past the
/// file's size, and taken back if the file fails. The first report of a transfer an earlier run left in flight
/// is the bytes already there (a resumable transfer's opening report), counted as resumed, not moved. An item whose
/// size is known only once it starts (a list's download, after its HEAD) is given it with ``expect(_:firstReportIsResumed:)``;
/// a stream of unknown length (``growsWithReports``) adds what it moves to the totals as it goes.
final class OSSBatchFileMeter: Sendable {
    private struct State {
        var size: Int64
        var firstReportIsResumed: Bool
        var credited: Int64 = 0
        var reports = 0
    }

    /// Whether the size is not known: every byte reported grows the totals too, with no cap.
    let growsWithReports: Bool
    private let tracker: OSSBatchProgressTracker
    private let onProgress: @Sendable () -> Void
    private let state: OSSLockedValue<State>

    init(
        size: Int64, firstReportIsResumed: Bool, growsWithReports: Bool = false, tracker: OSSBatchProgressTracker,
        onProgress: @escaping @Sendable () -> Void
    ) {
        self.growsWithReports = growsWithReports
        self.tracker = tracker
        self.onProgress = onProgress
        state = OSSLockedValue(State(size: size, firstReportIsResumed: firstReportIsResumed))
    }

    var size: Int64 { state.withLockedValue { $0.size } }

    /// A progress handler for a transfer of this file: `(step, total so far, expected)`.
    var handler: OSSProgressHandler {
        { [self] _, total, _ in report(total) }
    }

    /// The item turned out to have `size` bytes more to move than it was found with (0): they join the totals.
    func expect(_ size: Int64, firstReportIsResumed: Bool) {
        state.withLockedValue { state in
            state.size += size
            state.firstReportIsResumed = firstReportIsResumed
        }
        tracker.willTransfer(size)
    }

    /// The transfer reports `total` bytes so far (it may restart lower after a retry: nothing more is credited
    /// until it passes what was).
    func report(_ total: Int64) {
        let grows = growsWithReports
        let (delta, resumed) = state.withLockedValue { state -> (Int64, Bool) in
            state.reports += 1
            if grows, total > state.size { state.size = total }
            let capped = min(max(0, total), state.size)
            let delta = capped - state.credited
            guard delta > 0 else { return (0, false) }
            state.credited = capped
            return (delta, state.reports == 1 && state.firstReportIsResumed)
        }
        guard delta > 0 else { return }
        if grows { tracker.willTransfer(delta) }
        if resumed { tracker.resumed(delta) } else { tracker.moved(delta) }
        onProgress()
    }

    /// The file is done: whatever was not reported moved too.
    func finish() {
        report(size)
    }

    /// The file turned out to be done already (an earlier run finished it after its last journal entry): its bytes
    /// count as resumed, not moved.
    func foundDone() {
        let delta = state.withLockedValue { state -> Int64 in
            defer { state.credited = state.size }
            return state.size - state.credited
        }
        guard delta > 0 else { return }
        tracker.resumed(delta)
        onProgress()
    }

    /// The file did not get done: its bytes leave the totals.
    func withdraw() {
        let grows = growsWithReports
        let (size, credited) = state.withLockedValue { state -> (Int64, Int64) in
            defer { state.credited = state.size }  // nothing more counts
            // A growing meter put only what it credited into the totals.
            return (grows ? state.credited : state.size, state.credited)
        }
        tracker.withdraw(total: size, credited: credited)
    }
}
