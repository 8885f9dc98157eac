#if canImport(Darwin)
import Dispatch
import Foundation
import OSSResumable

/// The system's transfer service on Apple platforms: one background `URLSession` (the identifier is the session's).
///
/// Tasks are `uploadTask(with:fromFile:)` and `downloadTask(with:)` with their description in `taskDescription`.
/// The system delivers each completion once, to the delegate of the session recreated with the same identifier
/// (at the next launch, or in `application(_:handleEventsForBackgroundURLSession:completionHandler:)`); this
/// type writes each one durably to `eventDirectory` as it arrives (a download's file is moved there before the
/// delegate returns), so an event survives a process that dies before reconciling it, and the service reads and
/// acknowledges them as it does the simulated daemon's.
///
/// The session is made once per identifier and process (``OSSBackgroundSessionRegistry``): a second instance with the
/// same identifier and settings shares it, since two URLSessions with one background identifier are undefined
/// behaviour. Create it early (the system delivers events as soon as the session exists).
/// Note: this file is compiled on Apple platforms only (the Linux build uses ``OSSSimulatedTaskSystem``), and it
/// has not been built or run on a device yet: see docs/APPLE.md.
public final class OSSURLSessionBackgroundTaskSystem: OSSBackgroundTaskSystem {
    public let sessionIdentifier: String
    let session: URLSession
    let delegate: Delegate

    /// What a session is made with: a second instance must ask for the same.
    struct Settings: Hashable, Sendable, CustomStringConvertible {
        let eventDirectory: String
        let discretionary: Bool
        var description: String { "eventDirectory \(eventDirectory), discretionary \(discretionary)" }
    }

    /// The process's sessions. `Shared` needs `URLSession` to be `Sendable`: NSURLSession.h documents its
    /// instances as thread-safe, and FoundationNetworking declares it `@unchecked Sendable`; that Apple's overlay
    /// does too is for the Apple build (.github/workflows/apple.yml) to confirm.
    private static let sessions = OSSBackgroundSessionRegistry<Settings, Shared>()

    struct Shared: Sendable {
        let session: URLSession
        let delegate: Delegate
    }

    /// - Parameters:
    ///   - identifier: the background session identifier (fixed for the app).
    ///   - eventDirectory: where delivered events wait for reconciliation (in the app's container).
    ///   - discretionary: let the system pick a good time (power, Wi-Fi) for the transfers.
    ///
    /// A second instance for `identifier` in this process shares the first one's session. One with another
    /// `eventDirectory` or `discretionary` is a programming error and stops the process with a message naming the
    /// identifier (a second session would be undefined behaviour, and the first one's settings would apply).
    public init(identifier: String, eventDirectory: String, discretionary: Bool = false) {
        let settings = Settings(eventDirectory: OSSRecordStore.absolutePath(eventDirectory), discretionary: discretionary)
        let shared: Shared
        do {
            shared = try Self.sessions.session(identifier: identifier, settings: settings) {
                let delegate = Delegate(spool: OSSTransferSpool(root: settings.eventDirectory, sessionIdentifier: identifier))
                let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
                configuration.sessionSendsLaunchEvents = true
                configuration.isDiscretionary = discretionary
                let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
                return Shared(session: session, delegate: delegate)
            }
        } catch {
            preconditionFailure("OSSURLSessionBackgroundTaskSystem: \(error)")
        }
        self.sessionIdentifier = identifier
        self.session = shared.session
        self.delegate = shared.delegate
    }

    public func submit(_ task: OSSBackgroundTask) async throws {
        guard let url = URL(string: task.url) else {
            throw OSSClientError.invalidArgument("the task \(task.taskDescription) has an unusable URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = task.method
        for (name, value) in task.headers { request.setValue(value, forHTTPHeaderField: name) }
        let sessionTask: URLSessionTask
        switch task.kind {
        case .upload:
            guard let path = task.filePath else { throw OSSClientError.invalidArgument("an upload task needs a file") }
            sessionTask = session.uploadTask(with: request, fromFile: URL(fileURLWithPath: path))
        case .download:
            sessionTask = session.downloadTask(with: request)
        }
        sessionTask.taskDescription = task.taskDescription
        sessionTask.resume()
    }

    /// The tasks of the session whose completion the delegate has not handled yet (not written to `eventDirectory`):
    /// a task that has ended but whose completion the system has not delivered, or that the delegate is still
    /// writing, is still pending, so an attach never finds it in neither list and sends its part again.
    public func pendingTaskDescriptions() async throws -> [String] {
        let delegate = self.delegate
        return await session.allTasks
            .filter { !delegate.completionRecorded(taskIdentifier: $0.taskIdentifier) }
            .compactMap(\.taskDescription)
    }

    public func deliveredEvents() async throws -> [OSSBackgroundTaskEvent] {
        let spool = delegate.spool
        return await OSSBlockingIO.run {
            spool.completedEvents()
        }
    }

    public func acknowledge(_ events: [OSSBackgroundTaskEvent]) async throws {
        let spool = delegate.spool
        await OSSBlockingIO.run { spool.acknowledge(events) }
    }

    public func cancelTasks(describedAs descriptions: Set<String>) async throws {
        for task in await session.allTasks where descriptions.contains(task.taskDescription ?? "") {
            task.cancel()
        }
    }

    /// Waits for `urlSessionDidFinishEvents(forBackgroundURLSession:)` (at most 5 seconds: a launch that was
    /// not caused by background events gets none). Each such call of the system releases one round of waiting:
    /// when it came before anyone waited, the next wait returns at once.
    public func eventsDelivered() async {
        await delegate.waitForFinishedEvents(timeout: 5)
    }

    /// The session's delegate: records every completion durably as it arrives.
    final class Delegate: NSObject, URLSessionDataDelegate, URLSessionDownloadDelegate, Sendable {
        let spool: OSSTransferSpool
        private struct State {
            var downloaded: [Int: String] = [:]
            /// The tasks whose completion this delegate has handled.
            var recorded: Set<Int> = []
            /// The system finished delivering events while nobody waited.
            var finished = false
            var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
            var nextWaiter: UInt64 = 0
        }
        private let state = OSSLockedValue(State())

        init(spool: OSSTransferSpool) {
            self.spool = spool
            super.init()
            try? spool.makeDirectories()
        }

        func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
            // The system deletes `location` when this returns: move it now.
            let destination = spool.files + "/" + OSSTransferSpool.newEntryId()
            if (try? FileManager.default.moveItem(atPath: location.path, toPath: destination)) != nil {
                state.withLockedValue { $0.downloaded[downloadTask.taskIdentifier] = destination }
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let response = task.response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (name, value) in response?.allHeaderFields ?? [:] {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            let file = state.withLockedValue { $0.downloaded.removeValue(forKey: task.taskIdentifier) }
            var reason: String?
            if let error {
                reason = (error as? URLError)?.code == .cancelled ? OSSBackgroundTaskEvent.cancelled : "network error"
            }
            let event = OSSBackgroundTaskEvent(
                eventId: OSSTransferSpool.newEntryId(), taskDescription: task.taskDescription ?? "",
                status: error == nil ? response?.statusCode : nil, headers: headers, error: reason, downloadedFilePath: file)
            // A write that fails loses the event: the attach then finds the task in neither list and asks ListParts
            // (an upload) or sends the range again (a download), as for any lost event.
            try? spool.write(event, folder: spool.completed, id: event.eventId)
            state.withLockedValue { _ = $0.recorded.insert(task.taskIdentifier) }
        }

        /// Whether this delegate has handled the completion of task `taskIdentifier` (written it to the spool).
        func completionRecorded(taskIdentifier: Int) -> Bool {
            state.withLockedValue { $0.recorded.contains(taskIdentifier) }
        }

        func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
            let waiters = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
                let waiting = Array(state.waiters.values)
                state.waiters = [:]
                state.finished = waiting.isEmpty
                return waiting
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Returns after the system's next `urlSessionDidFinishEvents` (or at once when it came while nobody
        /// waited), or after `timeout` seconds. Each continuation is resumed exactly once: whoever removes it from
        /// the state under the lock resumes it.
        func waitForFinishedEvents(timeout: Double) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waiter = state.withLockedValue { state -> UInt64? in
                    if state.finished {
                        state.finished = false
                        return nil
                    }
                    state.nextWaiter += 1
                    state.waiters[state.nextWaiter] = continuation
                    return state.nextWaiter
                }
                guard let waiter else {
                    continuation.resume()
                    return
                }
                let state = self.state
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout) {
                    state.withLockedValue { $0.waiters.removeValue(forKey: waiter) }?.resume()
                }
            }
        }
    }
}
#endif
