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

        /// Where this request's metrics go: a factory of the client's own, or the process-wide one the app
        /// bootstrapped (or bound to the task); `nil` when there is neither, and the middleware passes requests
        /// straight through (no observers, no dimensions, no metric objects).
        func meter(_ dimensions: @autoclosure () -> [(String, String)]) -> Meter? {
            if let factory { return Meter(factory: factory, dimensions: dimensions()) }
            let global = MetricsSystem.factory
            return global is NOOPMetricsHandler ? nil : Meter(factory: global, dimensions: dimensions())
        }

        /// A request's meter: `operation`, and `bucket` with ``OSSObservability/bucketDimension``.
        func meter(_ context: OSSMiddlewareContext) -> Meter? {
            if bucketDimension, let bucket = context.bucket {
                return meter([("operation", context.operation), ("bucket", bucket)])
            }
            return meter([("operation", context.operation)])
        }

        var isActive: Bool { meter([]) != nil }
    }

    /// One request's (or transfer's) metrics: the factory found once for it, and the dimensions every metric of
    /// it carries.
    struct Meter {
        let factory: any MetricsFactory
        let dimensions: [(String, String)]

        func count(_ label: String, by amount: Int = 1, _ more: (String, String)? = nil) {
            guard amount > 0 else { return }
            Counter(label: label, dimensions: with(more), factory: factory).increment(by: amount)
        }

        func time(_ label: String, since start: ContinuousClock.Instant, _ more: (String, String)? = nil) {
            let elapsed = ContinuousClock.now - start
            Timer(label: label, dimensions: with(more), factory: factory).recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }

        private func with(_ more: (String, String)?) -> [(String, String)] {
            guard let more else { return dimensions }
            return dimensions + [more]
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
            guard let meter = sink.meter(context) else { return try await next(request, context) }
            let start = ContinuousClock.now
            let status = OSSLockedValue<Int?>(nil)
            var observed = context
            observed.onResponse { response in status.withLockedValue { $0 = response.status } }
            do {
                let result = try await next(request, observed)
                finish(meter, context, status: status.withLockedValue { $0 }, start: start)
                return result
            } catch {
                finish(meter, context, status: OSSOutcome.status(of: error), start: start)
                meter.count("oss_errors_total", ("code", OSSOutcome.code(of: error)))
                throw error
            }
        }

        private func finish(_ meter: Meter, _ context: OSSMiddlewareContext, status: Int?, start: ContinuousClock.Instant) {
            let statusClass = ("status_class", OSSOutcome.statusClass(status))
            meter.count("oss_requests_total", statusClass)
            meter.time("oss_request_duration_seconds", since: start, statusClass)
            meter.count("oss_retries_total", by: context.attemptsMade - 1)
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
            guard let meter = sink.meter(context) else { return try await next(request, context) }
            let tally = OSSLockedValue(Tally())
            var observed = context
            observed.onResponse { response in tally.withLockedValue { $0.status = response.status } }
            observed.onBodyBytesSent { count in tally.withLockedValue { $0.sent += count } }
            observed.onBodyBytesReceived { count in tally.withLockedValue { $0.received += count } }
            observed.onStall { tally.withLockedValue { $0.stalled = true } }
            do {
                let result = try await next(request, observed)
                finish(meter, context, tally.withLockedValue { $0 })
                return result
            } catch {
                var final = tally.withLockedValue { $0 }
                if final.status == nil { final.status = OSSOutcome.status(of: error) }
                finish(meter, context, final)
                throw error
            }
        }

        struct Tally: Sendable {
            var status: Int?
            var sent = 0
            var received = 0
            var stalled = false
        }

        private func finish(_ meter: Meter, _ context: OSSMiddlewareContext, _ tally: Tally) {
            meter.count("oss_attempts_total", ("status_class", OSSOutcome.statusClass(tally.status)))
            meter.count("oss_bytes_sent_total", by: tally.sent)
            meter.count("oss_bytes_received_total", by: tally.received)
            if context.attempt > 1 { meter.count("oss_bytes_resent_total", by: tally.sent) }
            if tally.stalled { meter.count("oss_stalls_total") }
        }
    }

    /// Per resumable transfer: `oss_transfers_total`, `oss_transfer_duration_seconds`, `oss_transfer_parts_total`,
    /// `oss_transfer_resumes_total`, `oss_transfer_resumed_bytes_total`.
    struct Transfer: OSSTransferMiddleware {
        let sink: Sink

        func handle(
            _ transfer: OSSTransferContext, next: () async throws -> OSSTransferSummary
        ) async throws -> OSSTransferSummary {
            let direction = ("direction", transfer.direction.rawValue)
            guard let meter = sink.meter(sink.bucketDimension ? [direction, ("bucket", transfer.bucket)] : [direction])
            else { return try await next() }
            let start = ContinuousClock.now
            do {
                let summary = try await next()
                meter.count("oss_transfers_total", ("outcome", "success"))
                meter.time("oss_transfer_duration_seconds", since: start)
                meter.count("oss_transfer_parts_total", by: summary.partsTransferred)
                if summary.isResumed {
                    meter.count("oss_transfer_resumes_total")
                    meter.count("oss_transfer_resumed_bytes_total", by: Int(summary.resumedBytes))
                }
                return summary
            } catch {
                meter.count("oss_transfers_total", ("outcome", "failure"))
                throw error
            }
        }
    }
}
