import Foundation
import OSSResumable

/// The app's side of the simulated transfer daemon (``OSSSimulatedTransferDaemon``): submissions are written
/// to the session's spool directory, outcomes read from it.
///
/// Attaching does what the system does for a relaunched app: when no daemon holds the session's lock, the tasks
/// a dead daemon had claimed are reported `cancelled` (as the system reports the tasks of a force-quit app),
/// so they are submitted again.
public struct OSSSimulatedTaskSystem: OSSBackgroundTaskSystem {
    public let sessionIdentifier: String
    let spool: OSSTransferSpool

    /// A session in `spoolDirectory` (shared with the daemon) named `sessionIdentifier`.
    public init(spoolDirectory: String, sessionIdentifier: String) {
        self.sessionIdentifier = sessionIdentifier
        self.spool = OSSTransferSpool(root: spoolDirectory, sessionIdentifier: sessionIdentifier)
    }

    public func submit(_ task: OSSBackgroundTask) async throws {
        let spool = self.spool
        try await OSSBlockingIO.run {
            try spool.makeDirectories()
            try spool.write(task, folder: spool.submitted, id: OSSTransferSpool.newEntryId())
        }
    }

    public func pendingTaskDescriptions() async throws -> [String] {
        let spool = self.spool
        return try await OSSBlockingIO.run {
            try Self.recoverIfNoDaemon(spool)
            return (spool.entries(spool.submitted).map { ($0, spool.submitted) } + spool.entries(spool.running).map { ($0, spool.running) })
                .compactMap { spool.read(OSSBackgroundTask.self, folder: $0.1, id: $0.0)?.taskDescription }
        }
    }

    public func deliveredEvents() async throws -> [OSSBackgroundTaskEvent] {
        let spool = self.spool
        return try await OSSBlockingIO.run {
            try Self.recoverIfNoDaemon(spool)
            return spool.completedEvents()
        }
    }

    public func acknowledge(_ events: [OSSBackgroundTaskEvent]) async throws {
        let spool = self.spool
        await OSSBlockingIO.run { spool.acknowledge(events) }
    }

    public func cancelTasks(describedAs descriptions: Set<String>) async throws {
        let spool = self.spool
        await OSSBlockingIO.run { spool.withdraw(describedAs: descriptions) }
    }

    /// Whether a daemon is attached to this session now (it holds the session's lock).
    public func daemonIsRunning() async -> Bool {
        let spool = self.spool
        return await OSSBlockingIO.run {
            guard FileManager.default.fileExists(atPath: spool.directory) else { return false }
            do {
                let lock = try OSSRecordLock.acquire(path: spool.lockPath)
                withExtendedLifetime(lock) {}
                return false
            } catch {
                return true
            }
        }
    }

    /// With no daemon alive (its lock is free), reports what a dead daemon had claimed as cancelled.
    static func recoverIfNoDaemon(_ spool: OSSTransferSpool) throws {
        guard FileManager.default.fileExists(atPath: spool.running) else { return }
        let lock: OSSRecordLock
        do {
            lock = try OSSRecordLock.acquire(path: spool.lockPath)
        } catch .recordLocked {
            return  // a daemon runs: its claimed tasks are in its hands
        }
        try withExtendedLifetime(lock) { try spool.cancelOrphanedTasks() }
    }
}
