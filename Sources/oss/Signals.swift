import AliyunOSS
import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Delivers SIGINT/SIGTERM as an async stream instead of killing the process, so commands can stop cleanly
/// (a `cp` keeps its checkpoint, `serve` shuts the server down).
actor SignalWatcher {
    let signals: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]

    init(_ numbers: [Int32] = [SIGINT, SIGTERM]) {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        signals = stream
        sources = numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Waits for the first signal.
    nonisolated func next() async -> Int32? {
        for await number in signals { return number }
        return nil
    }

    /// Stops watching (the signals go back to being ignored until the process exits).
    func stop() {
        for source in sources { source.cancel() }
    }
}

/// Runs `work`; when SIGINT or SIGTERM arrives, calls `interrupt` (a transfer's `pause()` or `cancel()`), or
/// cancels the task when there is none.
func runInterruptibly<T: Sendable>(
    interrupt: (@Sendable () -> Void)? = nil, _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let watcher = SignalWatcher()
    let task = Task { try await work() }
    let watch = Task {
        if await watcher.next() != nil {
            // What was kept, and how to go on, is said when the work has stopped (``PauseReport``).
            printError("\ninterrupted: stopping")
            if let interrupt { interrupt() } else { task.cancel() }
        }
    }
    defer { watch.cancel() }
    return try await task.value
}

/// The report of a transfer Ctrl-C paused. A pause is not an error: one line (`oss: paused ...`) says what stopped,
/// what was kept and the command that resumes it, which is this command as it was typed; the command ends with
/// status 130 (interrupted), as `oss --help` documents.
enum PauseReport {
    /// `error` itself, or, when it is a pause (`taskPaused`), the report `describe` words from the pause's resume
    /// token (nil when the transfer paused before anything resumable existed): what paused ("the upload to
    /// oss://b/k") and what was kept.
    static func replacing(
        _ error: any Error, _ describe: (OSSResumeToken?) -> (what: String, kept: String)
    ) -> any Error {
        guard let client = error as? OSSClientError, client.code == .taskPaused else { return error }
        let (what, kept) = describe(client.resumeToken)
        return CLIFailure(
            .interrupted, "paused \(what): \(kept); run the same command again to resume: \(commandLine)", isError: false)
    }

    /// This process's command line, each argument as a POSIX shell reads it back.
    static var commandLine: String { CommandLine.arguments.map(shellWord).joined(separator: " ") }

    /// `bytes` of `total`, for what a pause kept: `3.0 MiB of 6.0 MiB`.
    static func progress(_ bytes: Int64, of total: Int64) -> String {
        "\(formatBytes(bytes)) of \(formatBytes(total))"
    }
}

/// `word` as a POSIX shell reads it back: as it is when it holds only characters no shell treats specially, else in
/// single quotes.
func shellWord(_ word: String) -> String {
    let plain = word.unicodeScalars.enumerated().allSatisfy { index, scalar in
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_", "-", ".", "/", ",", ":", "@", "%", "+": true
        case "=": index > 0  // a leading = is zsh's command lookup
        default: false
        }
    }
    return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
