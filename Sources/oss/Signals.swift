import Dispatch

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
            printError("\ninterrupted: stopping (run the same command again to resume)")
            if let interrupt { interrupt() } else { task.cancel() }
        }
    }
    defer { watch.cancel() }
    return try await task.value
}
