#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

import Foundation

/// Shows transfer progress: a redrawn bar with bytes, rate and ETA on a terminal, a plain line every 10% otherwise.
/// Thread-safe through an actor; the SDK's progress closures call ``report(done:total:)`` from any task.
actor ProgressReporter {
    private let label: String
    private let isTerminal: Bool
    private let start = ContinuousClock.now
    private var lastDraw = ContinuousClock.now - .seconds(1)
    private var lastDecile = -1
    private var finished = false
    private var rate = RunRate()

    init(label: String, stream: Int32 = STDERR_FILENO) {
        self.label = label
        self.isTerminal = isatty(stream) == 1
    }

    func report(done: Int64, total: Int64) {
        guard !finished else { return }
        let now = ContinuousClock.now
        let speed = rate.record(done: done, at: Self.seconds(now - start))
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        // Reports come per chunk (thousands a second); the line is formatted only when it is drawn.
        var shownRate: String { speed.map { "\(formatBytes(Int64($0)))/s" } ?? "--/s" }
        if isTerminal {
            guard now - lastDraw >= .milliseconds(100) || done >= total else { return }
            lastDraw = now
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let eta = speed.flatMap { $0 > 0 && total > done ? Self.formatDuration(Double(total - done) / $0) : nil } ?? "--"
            let line = "\r\(label) [\(bar)] \(Int(fraction * 100))% \(formatBytes(done))/\(formatBytes(total)) \(shownRate) ETA \(eta)   "
            StandardStreams.writeError(Data(line.utf8))
        } else {
            let decile = Int(fraction * 10)
            guard decile != lastDecile else { return }
            lastDecile = decile
            printError("\(label): \(decile * 10)% \(formatBytes(done)) of \(formatBytes(total)) (\(shownRate))")
        }
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        guard !finished else { return }
        finished = true
        if isTerminal { StandardStreams.writeError(Data("\n".utf8)) }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func formatDuration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : s >= 60 ? "\(s / 60)m\(s % 60)s" : "\(s)s"
    }
}

/// The rate of one run of a transfer: the bytes reported after its first report over the time since that report.
///
/// The SDK's first report of a resumed transfer is, at once, all the bytes earlier runs finished; counting them
/// from the run's start made a resumed upload of a large file claim "12.9 GiB/s". Measuring from the first report
/// leaves them out; for a new transfer it leaves out only its first chunk and the time it took, so the rate is
/// still this run's. No rate (`nil`) until a report comes at least 0.2 s after the first, so a single early
/// report never yields a wild figure.
struct RunRate: Sendable {
    /// The first report: bytes done and seconds since the run started.
    private(set) var first: (done: Int64, seconds: Double)?

    /// Records a report of `done` bytes at `seconds` since the run started; the bytes per second of this run, or
    /// `nil` while there is no measure yet.
    mutating func record(done: Int64, at seconds: Double) -> Double? {
        guard let first else {
            self.first = (done, seconds)
            return nil
        }
        let span = seconds - first.seconds
        guard span >= 0.2 else { return nil }
        return Double(max(0, done - first.done)) / span
    }
}
