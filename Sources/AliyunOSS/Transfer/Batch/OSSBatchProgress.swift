import Foundation

/// A batch's progress at one moment (``OSSBatch/snapshot``, ``OSSBatchEvent/progress(_:)``).
///
/// Totals grow while the directory is walked or the prefix listed (``totalsAreFinal`` says when they stop).
/// Bytes count the files that are (or are to be) transferred, so a sync of an unchanged tree stays at zero
/// bytes; files count every item. A failed file's bytes leave both totals; a resumed batch counts what earlier
/// runs finished as done (``bytesFromEarlierRuns``) but never in the rate.
public struct OSSBatchProgress: Sendable, Hashable {
    /// Items ended (any outcome).
    public var filesDone: Int
    /// Items found so far.
    public var filesTotal: Int
    /// Items that failed so far.
    public var filesFailed: Int
    /// Bytes done of the files to transfer: moved by this run, plus those earlier runs had finished.
    public var bytesDone: Int64
    /// Bytes of the files to transfer found so far.
    public var bytesTotal: Int64
    /// Bytes earlier runs had finished (included in ``bytesDone``).
    public var bytesFromEarlierRuns: Int64
    /// Whether the walk or listing is over: the totals will not grow any more.
    public var totalsAreFinal: Bool
    /// Bytes per second moved by this run over the last few seconds (0 until there is a measure).
    public var bytesPerSecond: Double
    /// The time left at ``bytesPerSecond`` for the bytes known so far; `nil` without a rate.
    public var estimatedTimeRemaining: Duration?
    /// Time since the run started.
    public var elapsed: Duration

    /// `bytesDone / bytesTotal`, or `filesDone / filesTotal` while no bytes are to move; 0...1.
    public var fractionCompleted: Double {
        if bytesTotal > 0 { return min(1, Double(bytesDone) / Double(bytesTotal)) }
        return filesTotal > 0 ? min(1, Double(filesDone) / Double(filesTotal)) : 0
    }
}

/// Keeps a batch's progress: counts, bytes, the rate over a sliding window, and the Foundation `Progress` an
/// app binds to a progress view. Thread-safe; the files' progress handlers call it from any thread.
final class OSSBatchProgressTracker: Sendable {
    /// The window of the rate.
    static let rateWindow: Duration = .seconds(5)
    /// The least time between two ``OSSBatchEvent/progress(_:)`` events (and `Progress` updates).
    static let emitInterval: Duration = .milliseconds(250)

    private struct Sample {
        let time: ContinuousClock.Instant
        let moved: Int64
    }

    private struct State {
        var filesDone = 0
        var filesTotal = 0
        var filesFailed = 0
        var bytesDone: Int64 = 0
        var bytesTotal: Int64 = 0
        var bytesFromEarlierRuns: Int64 = 0
        var moved: Int64 = 0
        var totalsAreFinal = false
        var samples: [Sample] = []
        var lastEmit: ContinuousClock.Instant?
    }

    /// The `Progress` of the batch: unit counts in bytes, file counts in its user info (`fileTotalCount`,
    /// `fileCompletedCount`), throughput and time remaining as the system's keys.
    let progress: Progress
    private let state = OSSLockedValue(State())
    private let started = ContinuousClock.now

    init(fileOperation: OSSDirectoryTransferRequest.Direction) {
        progress = Progress.discreteProgress(totalUnitCount: 1)
        progress.kind = .file
        #if canImport(Darwin)
        progress.fileOperationKind = fileOperation == .upload ? .uploading : .downloading
        #endif
    }

    /// An item was found; `bytes` when it is to be transferred.
    func found(transferBytes bytes: Int64?) {
        state.withLockedValue { state in
            state.filesTotal += 1
            if let bytes { state.bytesTotal += bytes }
        }
    }

    /// An item needs `bytes` more transferred than it was found with (a sync decided to send it).
    func willTransfer(_ bytes: Int64) {
        state.withLockedValue { $0.bytesTotal += bytes }
    }

    /// `bytes` moved over the network by this run.
    func moved(_ bytes: Int64) {
        guard bytes > 0 else { return }
        state.withLockedValue { state in
            state.bytesDone += bytes
            state.moved += bytes
        }
    }

    /// `bytes` an earlier run had finished: done, not in the rate.
    func resumed(_ bytes: Int64) {
        guard bytes > 0 else { return }
        state.withLockedValue { state in
            state.bytesDone += bytes
            state.bytesFromEarlierRuns += bytes
        }
    }

    /// A file that was to transfer `total` bytes failed after `credited` of them counted as done: both leave
    /// the totals.
    func withdraw(total: Int64, credited: Int64) {
        state.withLockedValue { state in
            state.bytesTotal -= total
            state.bytesDone -= credited
        }
    }

    /// An item ended.
    func ended(failed: Bool) {
        state.withLockedValue { state in
            state.filesDone += 1
            if failed { state.filesFailed += 1 }
        }
    }

    /// The walk or listing is over.
    func totalsFinal() {
        state.withLockedValue { $0.totalsAreFinal = true }
    }

    var movedBytes: Int64 { state.withLockedValue { $0.moved } }

    var snapshot: OSSBatchProgress {
        let now = ContinuousClock.now
        return state.withLockedValue { state in Self.snapshot(&state, now: now, started: started) }
    }

    /// The snapshot to send now, or `nil` when the last one went out less than ``emitInterval`` ago (`force`
    /// sends anyway). The `Progress` is updated with it.
    func emission(force: Bool = false) -> OSSBatchProgress? {
        let now = ContinuousClock.now
        let snapshot: OSSBatchProgress? = state.withLockedValue { state in
            if !force, let last = state.lastEmit, now - last < Self.emitInterval { return nil }
            state.lastEmit = now
            return Self.snapshot(&state, now: now, started: started)
        }
        if let snapshot { update(progress, with: snapshot) }
        return snapshot
    }

    private static func snapshot(_ state: inout State, now: ContinuousClock.Instant, started: ContinuousClock.Instant)
        -> OSSBatchProgress
    {
        // A sample per call at most every tenth of a second, the window's older ones dropped (keeping one at or
        // before its start).
        if state.samples.last.map({ now - $0.time >= .milliseconds(100) }) ?? true {
            state.samples.append(Sample(time: now, moved: state.moved))
        }
        while state.samples.count > 2, now - state.samples[1].time >= rateWindow { state.samples.removeFirst() }
        let first = state.samples.first
        let rate = Self.rate(
            moved: state.moved, windowStart: first.map { ($0.moved, now - $0.time) }, sinceStart: now - started)
        let remaining = max(0, state.bytesTotal - state.bytesDone)
        let seconds = rate > 0 ? Double(remaining) / rate : .infinity
        let eta: Duration? = seconds < 1e9 ? .seconds(seconds) : nil
        return OSSBatchProgress(
            filesDone: state.filesDone, filesTotal: state.filesTotal, filesFailed: state.filesFailed,
            bytesDone: state.bytesDone, bytesTotal: state.bytesTotal, bytesFromEarlierRuns: state.bytesFromEarlierRuns,
            totalsAreFinal: state.totalsAreFinal, bytesPerSecond: rate, estimatedTimeRemaining: eta,
            elapsed: now - started)
    }

    /// Bytes per second of this run: `moved` (this run's bytes, never those earlier runs finished) over the
    /// sliding window (`windowStart`: the bytes moved at its start and how long ago that was) once it spans at
    /// least 0.2 s, else over the whole run (`sinceStart`), so a batch that moves everything in its first moments
    /// still shows a rate rather than 0. 0 while nothing moved.
    static func rate(moved: Int64, windowStart: (moved: Int64, age: Duration)?, sinceStart: Duration) -> Double {
        if let windowStart, windowStart.age >= .milliseconds(200) {
            return Double(moved - windowStart.moved) / windowStart.age.timeInterval
        }
        guard moved > 0 else { return 0 }
        return Double(moved) / max(sinceStart.timeInterval, 0.001)
    }

    private func update(_ progress: Progress, with snapshot: OSSBatchProgress) {
        // Never back to a total of 0 (swift-corelibs-foundation traps on it); a batch with no bytes to move is one
        // unit, done when every item is.
        var (total, done) = (max(snapshot.bytesTotal, snapshot.bytesDone), snapshot.bytesDone)
        if total == 0 {
            total = 1
            done = snapshot.totalsAreFinal && snapshot.filesDone == snapshot.filesTotal ? 1 : 0
        }
        if progress.totalUnitCount != total { progress.totalUnitCount = total }
        if progress.completedUnitCount != done { progress.completedUnitCount = done }
        progress.setUserInfoObject(snapshot.filesTotal, forKey: .fileTotalCountKey)
        progress.setUserInfoObject(snapshot.filesDone, forKey: .fileCompletedCountKey)
        progress.setUserInfoObject(Int(snapshot.bytesPerSecond), forKey: .throughputKey)
        progress.setUserInfoObject(
            snapshot.estimatedTimeRemaining.map { Int($0.timeInterval.rounded(.up)) }, forKey: .estimatedTimeRemainingKey)
    }
}
