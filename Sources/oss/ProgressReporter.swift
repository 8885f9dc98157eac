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

    init(label: String, stream: Int32 = STDERR_FILENO) {
        self.label = label
        self.isTerminal = isatty(stream) == 1
    }

    func report(done: Int64, total: Int64) {
        guard !finished else { return }
        let now = ContinuousClock.now
        let elapsed = max(0.001, Self.seconds(now - start))
        let rate = Double(done) / elapsed
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 1
        if isTerminal {
            guard now - lastDraw >= .milliseconds(100) || done >= total else { return }
            lastDraw = now
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let eta = rate > 0 && total > done ? Self.formatDuration(Double(total - done) / rate) : "--"
            let line = "\r\(label) [\(bar)] \(Int(fraction * 100))% \(formatBytes(done))/\(formatBytes(total)) \(formatBytes(Int64(rate)))/s ETA \(eta)   "
            FileHandle.standardError.write(Data(line.utf8))
        } else {
            let decile = Int(fraction * 10)
            guard decile != lastDecile else { return }
            lastDecile = decile
            printError("\(label): \(decile * 10)% \(formatBytes(done)) of \(formatBytes(total)) (\(formatBytes(Int64(rate)))/s)")
        }
    }

    /// Ends the bar's line on a terminal.
    func finish() {
        guard !finished else { return }
        finished = true
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static func formatDuration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600)h\(s % 3600 / 60)m" : s >= 60 ? "\(s / 60)m\(s % 60)s" : "\(s)s"
    }
}
