import AliyunOSS
import CoreMetrics


/// The metrics middleware (names in the DocC article "Metrics and tracing"): one value holding the three layers.
struct OSSMetricsMiddleware: Sendable {
    let operation: Operation
    let attempt: Attempt
    let transfer: Transfer

    init(_ observability: OSSObservability) {
        let sink = Sink(factory: observability.metricsFactory, bucketDimension: observability.bucketDimension)
        operation = Operation(sink: sink)
        attempt = Attempt(sink: sink)
        transfer = Transfer(sink: sink)
    }

    /// Makes the metric objects, from the client's factory or the process-wide one.
    struct Sink: Sendable {
        let factory: (any MetricsFactory)?
        let bucketDimension: Bool

        func dimensions(_ context: OSSMiddlewareContext, _ more: (String, String)...) -> [(String, String)] {
            var dimensions = [("operation", context.operation)]
            if bucketDimension, let bucket = context.bucket { dimensions.append(("bucket", bucket)) }
            dimensions.append(contentsOf: more)
            return dimensions
        }

        /// Whether metrics go anywhere: a factory of the client's own, or a process-wide one the app bootstrapped.
        /// With neither, the middleware passes requests straight through (no observers, no dimensions, no metric
        /// objects).
        var isActive: Bool { factory != nil || !(MetricsSystem.factory is NOOPMetricsHandler) }

        func count(_ label: String, _ dimensions: [(String, String)], by amount: Int = 1) {
            guard amount > 0 else { return }
            let counter =
                if let factory { Counter(label: label, dimensions: dimensions, factory: factory) } else {
                    Counter(label: label, dimensions: dimensions)
                }
            counter.increment(by: amount)
        }

        func time(_ label: String, _ dimensions: [(String, String)], since start: ContinuousClock.Instant) {
            let elapsed = ContinuousClock.now - start
            let timer =
                if let factory { Timer(label: label, dimensions: dimensions, factory: factory) } else {
                    Timer(label: label, dimensions: dimensions)
                }
            timer.recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
    }

    /// Per operation, outside the retries: `oss_requests_total`, `oss_request_duration_seconds`,
    /// `oss_errors_total`, `oss_retries_total`.
    struct Operation: OSSMiddleware {
        let sink: Sink

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard sink.isActive else { return try await next(request, context) }
            let start = ContinuousClock.now
            let status = OSSLockedValue<Int?>(nil)
            var observed = context
            observed.onResponse { response in status.withLockedValue { $0 = response.status } }
            do {
                let result = try await next(request, observed)
                finish(context, status: status.withLockedValue { $0 }, start: start)
                return result
            } catch {
                finish(context, status: OSSOutcome.status(of: error), start: start)
                sink.count("oss_errors_total", sink.dimensions(context, ("code", OSSOutcome.code(of: error))))
                throw error
            }
        }

        private func finish(_ context: OSSMiddlewareContext, status: Int?, start: ContinuousClock.Instant) {
            let dimensions = sink.dimensions(context, ("status_class", OSSOutcome.statusClass(status)))
            sink.count("oss_requests_total", dimensions)
            sink.time("oss_request_duration_seconds", dimensions, since: start)
            sink.count("oss_retries_total", sink.dimensions(context), by: context.attemptsMade - 1)
        }
    }

    /// Per attempt: `oss_attempts_total`, `oss_bytes_sent_total`, `oss_bytes_received_total`,
    /// `oss_bytes_resent_total`, `oss_stalls_total`.
    struct Attempt: OSSMiddleware {
        let sink: Sink

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard sink.isActive else { return try await next(request, context) }
            let tally = OSSLockedValue(Tally())
            var observed = context
            observed.onResponse { response in tally.withLockedValue { $0.status = response.status } }
            observed.onBodyBytesSent { count in tally.withLockedValue { $0.sent += count } }
            observed.onBodyBytesReceived { count in tally.withLockedValue { $0.received += count } }
            observed.onStall { tally.withLockedValue { $0.stalled = true } }
            do {
                let result = try await next(request, observed)
                finish(context, tally.withLockedValue { $0 })
                return result
            } catch {
                var final = tally.withLockedValue { $0 }
                if final.status == nil { final.status = OSSOutcome.status(of: error) }
                finish(context, final)
                throw error
            }
        }

        struct Tally: Sendable {
            var status: Int?
            var sent = 0
            var received = 0
            var stalled = false
        }

        private func finish(_ context: OSSMiddlewareContext, _ tally: Tally) {
            let plain = sink.dimensions(context)
            sink.count("oss_attempts_total", sink.dimensions(context, ("status_class", OSSOutcome.statusClass(tally.status))))
            sink.count("oss_bytes_sent_total", plain, by: tally.sent)
            sink.count("oss_bytes_received_total", plain, by: tally.received)
            if context.attempt > 1 { sink.count("oss_bytes_resent_total", plain, by: tally.sent) }
            if tally.stalled { sink.count("oss_stalls_total", plain) }
        }
    }

    /// Per resumable transfer: `oss_transfers_total`, `oss_transfer_duration_seconds`, `oss_transfer_parts_total`,
    /// `oss_transfer_resumes_total`, `oss_transfer_resumed_bytes_total`.
    struct Transfer: OSSTransferMiddleware {
        let sink: Sink

        func handle(
            _ transfer: OSSTransferContext, next: () async throws -> OSSTransferSummary
        ) async throws -> OSSTransferSummary {
            guard sink.isActive else { return try await next() }
            let start = ContinuousClock.now
            var dimensions = [("direction", transfer.direction.rawValue)]
            if sink.bucketDimension { dimensions.append(("bucket", transfer.bucket)) }
            do {
                let summary = try await next()
                sink.count("oss_transfers_total", dimensions + [("outcome", "success")])
                sink.time("oss_transfer_duration_seconds", dimensions, since: start)
                sink.count("oss_transfer_parts_total", dimensions, by: summary.partsTransferred)
                if summary.isResumed {
                    sink.count("oss_transfer_resumes_total", dimensions)
                    sink.count("oss_transfer_resumed_bytes_total", dimensions, by: Int(summary.resumedBytes))
                }
                return summary
            } catch {
                sink.count("oss_transfers_total", dimensions + [("outcome", "failure")])
                throw error
            }
        }
    }
}
