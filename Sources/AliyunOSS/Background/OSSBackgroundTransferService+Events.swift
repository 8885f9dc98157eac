import Dispatch
import Foundation

extension OSSBackgroundTransferService {
    /// The entry point for `application(_:handleEventsForBackgroundURLSession:completionHandler:)` (and SwiftUI's
    /// `.backgroundTask(.urlSession(_:))`): when `identifier` is this service's session, waits until the system
    /// delivered its events, reconciles (records the outcomes, submits what remains, completes the uploads whose
    /// parts are all verified), and calls `completionHandler` last. For another identifier it calls it at once.
    public func handleEventsForBackgroundURLSession(
        identifier: String, completionHandler: @escaping @Sendable () -> Void
    ) {
        guard identifier == system.sessionIdentifier else {
            completionHandler()
            return
        }
        Task {
            _ = try? await handleEvents()
            #if canImport(Darwin)
            DispatchQueue.main.async(execute: completionHandler)  // UIKit wants it on the main thread
            #else
            completionHandler()
            #endif
        }
    }

    /// The async form of ``handleEventsForBackgroundURLSession(identifier:completionHandler:)``: waits for the
    /// system's events, then reconciles.
    public func handleEvents() async throws -> OSSBackgroundReconcileReport {
        await system.eventsDelivered()
        return try await reconcile()
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
