import Logging

/// A layer around a whole resumable transfer (``OSSClient/resumableUpload(_:)``,
/// ``OSSClient/resumableDownload(_:)`` and their token forms), above the operations it runs: the place for a
/// transfer's span or its counters. Added through ``OSSClientConfiguration/transferMiddleware``.
///
/// The operations a transfer runs (ListParts, UploadPart, ranged GETs, ...) go through the operation and attempt
/// middleware as usual, in the task (and the `ServiceContext`) of `next`.
public protocol OSSTransferMiddleware: Sendable {
    /// Handles one transfer run: call `next` once and return what it returns.
    func handle(
        _ transfer: OSSTransferContext, next: () async throws -> OSSTransferSummary
    ) async throws -> OSSTransferSummary
}

/// Which transfer a ``OSSTransferMiddleware`` sees.
public struct OSSTransferContext: Sendable {
    public enum Direction: String, Sendable {
        case upload
        case download
    }

    public let direction: Direction
    public let bucket: String
    /// The object key: personal data in many apps; record it only when the app asked for it.
    public let key: String
    /// The client's logger.
    public let logger: Logger
}

/// How a transfer run ended, when it succeeded.
public struct OSSTransferSummary: Sendable, Hashable {
    /// The bytes of the object (or range) in place at the end.
    public var totalBytes: Int64
    /// The bytes already in place when the run started (a resumed transfer): not sent again.
    public var resumedBytes: Int64
    /// The part size the run used.
    public var partSize: Int64

    /// Whether the run resumed an earlier one (some bytes were already in place).
    public var isResumed: Bool { resumedBytes > 0 }

    /// The parts this run moved: those not already in place.
    public var partsTransferred: Int {
        guard partSize > 0 else { return 0 }
        let left = max(0, totalBytes - resumedBytes)
        return Int((left + partSize - 1) / partSize)
    }
}

extension OSSClient {
    /// Runs a transfer through the configured transfer middleware (directly when there is none).
    func instrumentedTransfer<Result: Sendable>(
        _ direction: OSSTransferContext.Direction, bucket: String, key: String,
        summary: (Result) -> OSSTransferSummary, body: () async throws -> Result
    ) async throws -> Result {
        let middleware = configuration.transferMiddleware
        if middleware.isEmpty { return try await body() }
        let context = OSSTransferContext(direction: direction, bucket: bucket, key: key, logger: logger)
        var result: Result?
        _ = try await Self.runTransfer(middleware[...], context: context) {
            let value = try await body()
            result = value
            return summary(value)
        }
        guard let result else { throw OSSClientError(.exceptionCaught, "a transfer middleware did not call next") }
        return result
    }

    private static func runTransfer(
        _ middleware: ArraySlice<any OSSTransferMiddleware>, context: OSSTransferContext,
        terminal: () async throws -> OSSTransferSummary
    ) async throws -> OSSTransferSummary {
        guard let first = middleware.first else { return try await terminal() }
        return try await first.handle(context) {
            try await runTransfer(middleware.dropFirst(), context: context, terminal: terminal)
        }
    }
}

extension OSSTransferSummary {
    init(_ result: OSSResumableUploadResult) {
        self.init(totalBytes: result.totalBytes, resumedBytes: result.resumedBytes, partSize: result.partSize)
    }

    init(_ result: OSSResumableDownloadResult) {
        self.init(totalBytes: result.totalBytes, resumedBytes: result.resumedBytes, partSize: result.partSize)
    }
}
