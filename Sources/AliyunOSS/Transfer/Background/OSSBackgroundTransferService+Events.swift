extension OSSBackgroundTransferService {
    /// The entry point for `application(_:handleEventsForBackgroundURLSession:completionHandler:)`: pass what
    /// UIKit hands the app. When `identifier` is this service's session, it waits until the system delivered its
    /// events, records their outcomes, submits the parts that are missing or failed, and calls
    /// `completionHandler` (on the main actor): that is all the system waits for, and a background launch has
    /// about 30 seconds. The network work of reconciling (ListParts for lost outcomes, Complete, HEAD) runs
    /// after, as ``reconcile()`` does. For another identifier it calls `completionHandler` at once.
    ///
    /// The handler need not be `@Sendable`: it stays on the main actor, where UIKit's app delegate runs.
    @MainActor
    public func handleEventsForBackgroundURLSession(identifier: String, completionHandler: @escaping () -> Void) {
        guard identifier == system.sessionIdentifier else {
            completionHandler()
            return
        }
        Task { @MainActor in
            // An attach that fails leaves the events with the system for the next one; the handler is still due.
            _ = try? await self.recordDeliveredEvents()
            completionHandler()
            self.finishReconciling()  // in the same main-actor job as the handler: no suspension in between
        }
    }

    /// The async form of ``handleEventsForBackgroundURLSession(identifier:completionHandler:)``, for SwiftUI's
    /// `.backgroundTask(.urlSession(_:))`, whose action the system waits for: waits for the system's events,
    /// records them and submits what is missing, and returns that attach's report. The network work of
    /// reconciling runs after, in a task of its own (as ``reconcile()`` does).
    @discardableResult
    public func handleEvents() async throws -> OSSBackgroundReconcileReport {
        defer { finishReconciling() }
        return try await recordDeliveredEvents()
    }

    /// Waits for the system's events, then attaches without any request to OSS (``AttachScope/recordOnly``).
    func recordDeliveredEvents() async throws -> OSSBackgroundReconcileReport {
        await system.eventsDelivered()
        return try await attach(.recordOnly)
    }

    /// Runs the full attach in a task of its own, once the system no longer waits for this process (after the
    /// previous one of these, if any). Its failures are the next attach's: the records and the system's events say
    /// what is left.
    func finishReconciling() {
        finishing.withLockedValue { current in
            let previous = current
            current = Task {
                await previous?.value
                _ = try? await self.reconcile()
            }
        }
    }

    /// Returns when the attaches started by ``finishReconciling()`` so far have ended.
    func finishedReconciling() async {
        await finishing.withLockedValue { $0 }?.value
    }

    /// Reconciles until every background transfer of the record directory is finished (or one fails: its error
    /// is thrown), sleeping `pollInterval` between attaches; `onReport` sees each attach's report. For a process
    /// that stays in the foreground while the system works (a CLI, tests, the simulated daemon).
    public func reconcileUntilFinished(
        pollInterval: Duration = .milliseconds(100), onReport: @Sendable (OSSBackgroundReconcileReport) -> Void = { _ in }
    ) async throws {
        while true {
            let report = try await reconcile()
            onReport(report)
            if let failure = report.failures.first {
                throw OSSClientError(.notKnown, "background transfer \(failure.transferId): \(failure.error ?? "failed")")
            }
            if try recordNames().isEmpty { return }
            try await Task.sleep(for: pollInterval)
        }
    }
}
