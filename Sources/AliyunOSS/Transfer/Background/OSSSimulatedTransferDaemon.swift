import Foundation
import OSSResumable

/// A stand-in for the system's transfer daemon, for platforms without background URLSession (and for tests):
/// meant to run in its own process, it performs the tasks app processes submit to a session's spool
/// (``OSSSimulatedTaskSystem``) over HTTP, persists each outcome durably, and leaves the outcomes for the next
/// app process that attaches.
///
/// It holds the session's lock for its whole life (one daemon per session). Tasks a previous daemon claimed
/// but never finished (it was killed) are reported `cancelled` when it starts, as the app's attach does when no
/// daemon runs. It never logs URLs (they carry signatures).
public struct OSSSimulatedTransferDaemon: Sendable {
    let spool: OSSTransferSpool
    /// Tasks performed at once.
    public let concurrency: Int
    let transportKind: OSSTransportKind

    public init(spoolDirectory: String, sessionIdentifier: String, concurrency: Int = 2, transport: OSSTransportKind = .automatic) {
        spool = OSSTransferSpool(root: spoolDirectory, sessionIdentifier: sessionIdentifier)
        self.concurrency = max(1, concurrency)
        transportKind = transport
    }

    /// Performs submitted tasks until cancelled, or, with `exitWhenIdle`, until none is submitted or running.
    /// Returns the number of tasks performed.
    ///
    /// - Throws: `OSSResumableError.recordLocked` when another daemon serves the session.
    public func run(exitWhenIdle: Bool, pollInterval: Duration = .milliseconds(50)) async throws -> Int {
        let spool = self.spool
        var attempts = 0
        let lock: OSSRecordLock
        while true {
            do {
                lock = try await OSSBlockingIO.run { () throws -> OSSRecordLock in
                    try spool.makeDirectories()
                    let lock = try OSSRecordLock.acquire(path: spool.lockPath)
                    try spool.cancelOrphanedTasks()
                    return lock
                }
                break
            } catch OSSResumableError.recordLocked(let path) {
                // An attaching app holds the lock for a moment to check that no daemon runs; another daemon holds
                // it for good.
                attempts += 1
                guard attempts < 40 else { throw OSSResumableError.recordLocked(path: path) }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { withExtendedLifetime(lock) {} }
        let transport = transportKind.makeTransport(configuration: OSSClientConfiguration())
        do {
            let performed = try await loop(transport: transport, exitWhenIdle: exitWhenIdle, pollInterval: pollInterval)
            try? await transport.shutdown()
            return performed
        } catch {
            try? await transport.shutdown()
            throw error
        }
    }

    private func loop(transport: any OSSHTTPTransport, exitWhenIdle: Bool, pollInterval: Duration) async throws -> Int {
        let spool = self.spool
        return try await withThrowingTaskGroup(of: Void.self) { group in
            var inFlight = 0
            var performed = 0
            while true {
                try Task.checkCancellation()
                let submitted = await OSSBlockingIO.run { spool.entries(spool.submitted) }
                for id in submitted where inFlight < concurrency {
                    try await OSSBlockingIO.run { try spool.move(id: id, from: spool.submitted, to: spool.running) }
                    group.addTask { try await Self.perform(id: id, spool: spool, transport: transport) }
                    inFlight += 1
                }
                if inFlight > 0 {
                    // New submissions are picked up as soon as a slot frees.
                    try await group.next()
                    inFlight -= 1
                    performed += 1
                } else {
                    if exitWhenIdle { return performed }
                    try await Task.sleep(for: pollInterval)
                }
            }
        }
    }

    /// Performs one claimed task and records its outcome (then drops the claim).
    static func perform(id: String, spool: OSSTransferSpool, transport: any OSSHTTPTransport) async throws {
        guard let task = await OSSBlockingIO.run({ spool.read(OSSBackgroundTask.self, folder: spool.running, id: id) }) else {
            await OSSBlockingIO.run { spool.remove(folder: spool.running, id: id) }
            return
        }
        var event = OSSBackgroundTaskEvent(eventId: id, taskDescription: task.taskDescription, status: nil, headers: [:], error: nil)
        do {
            switch task.kind {
            case .upload:
                let path = task.filePath ?? ""
                let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64 ?? 0
                let request = OSSHTTPRequest(
                    method: task.method, url: task.url, headers: task.headers, body: .fileRange(path: path, offset: 0, length: size))
                (event.status, event.headers) = try await transport.send(request) { response in
                    for try await _ in response.body {}
                    return (response.status, response.headers)
                }
            case .download:
                let destination = spool.files + "/" + id
                (event.status, event.headers) = try await download(task, to: destination, transport: transport)
                if event.status.map({ (200..<300).contains($0) }) == true { event.downloadedFilePath = destination }
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            // Only the error's kind: a transport error's text may quote the URL, which holds a signature.
            event.error = (error as? OSSClientError).map { $0.code == .taskCancelled ? OSSBackgroundTaskEvent.cancelled : "\($0.code)" }
                ?? "network error"
            if Task.isCancelled {
                // The daemon is stopping: the claim stays, and the next start reports the task cancelled.
                throw CancellationError()
            }
        }
        let outcome = event
        try await OSSBlockingIO.run {
            try spool.write(outcome, folder: spool.completed, id: id)
            spool.remove(folder: spool.running, id: id)
        }
    }

    /// Streams the response body to `destination` (`.partial` first, synced, renamed) when the status is 2xx.
    static func download(_ task: OSSBackgroundTask, to destination: String, transport: any OSSHTTPTransport)
        async throws -> (Int, [String: String])
    {
        let partial = OSSTransferSpool.partialPath(of: destination)
        let request = OSSHTTPRequest(method: task.method, url: task.url, headers: task.headers)
        return try await transport.send(request) { response in
            guard (200..<300).contains(response.status) else {
                for try await _ in response.body {}
                return (response.status, response.headers)
            }
            _ = FileManager.default.createFile(atPath: partial, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: partial))
            do {
                for try await chunk in response.body { try handle.write(contentsOf: chunk) }
                try handle.synchronize()
                try handle.close()
            } catch {
                try? handle.close()
                throw error
            }
            try OSSDurableFile.rename(partial, to: destination)
            return (response.status, response.headers)
        }
    }
}
