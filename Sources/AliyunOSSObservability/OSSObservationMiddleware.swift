import AliyunOSS
import CoreMetrics
import Tracing

/// The metrics and tracing middleware (metric and span names in the DocC article "Metrics and tracing"): one
/// middleware per layer records both, so each request is watched once (one copy of its context, one set of
/// observers, one lock) and its backends are looked up once per operation, not once per layer.
///
/// Each layer's `handle` is generic over the operation's result; it only runs `next` in the right task-local scope.
/// The work is done by non-generic `begin` and `end` methods, which the compiler specializes (in generic code every
/// optional, tuple and closure of the result type is looked up at run time).
///
/// Spans start in the task's `ServiceContext`: an operation's span is a child of the app's current span, an
/// attempt's (with ``OSSObservability/recordsAttemptSpans``) a child of its operation's, and the operations of a
/// resumable transfer children of the transfer's. A span's attributes are written once, when it ends (a tracer
/// exports a span when it ends), and not at all when the tracer does not record it.
struct OSSObservationMiddleware: Sendable {
    let operation: Operation
    let attempt: Attempt
    let transfer: Transfer

    init(_ observability: OSSObservability) {
        let backends = Backends(observability)
        operation = Operation(backends: backends)
        attempt = Attempt(backends: backends)
        transfer = Transfer(backends: backends)
    }

    /// Where spans and metrics go: the client's own tracer and metrics factory, or the ones the app bootstrapped
    /// process-wide or bound to the task (looked up at each operation, as the app may bind them to a task).
    struct Backends: Sendable {
        let tracer: (any Tracer)?
        let factory: (any MetricsFactory)?
        let recordsSpans: Bool
        let recordsAttemptSpans: Bool
        let recordsMetrics: Bool
        let recordsObjectKeys: Bool
        let bucketDimension: Bool
        /// Tells this client's observations from another observed client's (see ``Observation``).
        let owner = Owner()

        final class Owner: Sendable {}

        init(_ observability: OSSObservability) {
            tracer = observability.tracer
            factory = observability.metricsFactory
            recordsSpans = observability.recordsSpans
            recordsAttemptSpans = observability.recordsAttemptSpans
            recordsMetrics = observability.recordsMetrics
            recordsObjectKeys = observability.recordsObjectKeys
            bucketDimension = observability.bucketDimension
        }

        /// The tracer spans go to; `nil` when spans are off or nothing is bootstrapped (no span, no context, no
        /// attribute formatting then).
        func activeTracer() -> (any Tracer)? {
            guard recordsSpans else { return nil }
            if let tracer { return tracer }
            // Nothing bootstrapped is a `NoOpInstrument`: one type comparison. A single tracer is the instrument
            // itself (one cast); only a `MultiplexInstrument` needs `InstrumentationSystem.tracer`'s search.
            let instrument = InstrumentationSystem.instrument
            if type(of: instrument) == NoOpInstrument.self { return nil }
            let tracer = (instrument as? any Tracer) ?? InstrumentationSystem.tracer
            return type(of: tracer) == NoOpTracer.self ? nil : tracer
        }

        /// The metrics factory; `nil` when metrics are off or nothing is bootstrapped (no metric objects then).
        func activeFactory() -> (any MetricsFactory)? {
            guard recordsMetrics else { return nil }
            if let factory { return factory }
            let global = MetricsSystem.factory
            return type(of: global) == NOOPMetricsHandler.self ? nil : global
        }

        /// Begins observing an operation or a transfer: its span (named `name`, started in the task's context;
        /// none without `makesSpan`) and its metrics' `dimensions`; `nil` when it records nothing and the
        /// middleware passes it straight through.
        func begin(
            _ name: @autoclosure () -> String, kind: SpanKind, dimensions: @autoclosure () -> [(String, String)],
            makesSpan: Bool = true
        ) -> Observation? {
            let tracer = activeTracer()
            let meter = activeFactory().map { Meter(factory: $0, dimensions: dimensions()) }
            guard tracer != nil || meter != nil else { return nil }
            let span =
                makesSpan ? tracer?.startSpan(name(), context: ServiceContext.current ?? .topLevel, ofKind: kind) : nil
            return Observation(owner: ObjectIdentifier(owner), tracer: tracer, meter: meter, span: span)
        }

        /// A request's dimensions: `operation`, and `bucket` with ``OSSObservability/bucketDimension``.
        func dimensions(_ context: OSSMiddlewareContext) -> [(String, String)] {
            if bucketDimension, let bucket = context.bucket { return [("operation", context.operation), ("bucket", bucket)] }
            return [("operation", context.operation)]
        }

        func describe(_ attributes: inout [String: SpanAttribute], bucket: String?, key: String?) {
            if let bucket { attributes["oss.bucket"] = .string(bucket) }
            if recordsObjectKeys, let key { attributes["oss.key"] = .string(key) }
        }
    }

    /// One operation's (or transfer's) observation: the backends found for it, its span, and what its attempts
    /// saw. An operation's reaches its attempts through the task (they run inside the operation's `next`), so an
    /// attempt neither looks the backends up again nor watches the response a second time; an attempt uses it only
    /// if it is its own client's (`owner`).
    final class Observation: Sendable {
        let owner: ObjectIdentifier
        let tracer: (any Tracer)?
        let meter: Meter?
        /// The operation's span, where attempts without spans of their own note a failure or a stall.
        let span: (any Span)?
        let start = ContinuousClock.now
        let state = OSSLockedValue(State())

        @TaskLocal static var current: Observation?

        init(owner: ObjectIdentifier, tracer: (any Tracer)?, meter: Meter?, span: (any Span)?) {
            self.owner = owner
            self.tracer = tracer
            self.meter = meter
            self.span = span
        }

        /// Ends the span: `describe` writes its attributes (only if the tracer records it), a failure is recorded.
        func endSpan(_ error: (any Error)?, _ describe: (inout [String: SpanAttribute]) -> Void) {
            guard let span else { return }
            OSSObservationMiddleware.end(span, error, describe)
        }
    }

    /// Writes a span's attributes (only if its tracer records it), records a failure, and ends it.
    static func end(_ span: any Span, _ error: (any Error)?, _ describe: (inout [String: SpanAttribute]) -> Void) {
        if span.isRecording {
            var values: [String: SpanAttribute] = [:]
            values.reserveCapacity(8)
            describe(&values)
            span.attributes = SpanAttributes(values)
        }
        if let error {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// Runs `body`, then `end` with what it threw (`nil` when it returned).
    static func run<Result>(ending end: ((any Error)?) -> Void, _ body: () async throws -> Result) async throws -> Result {
        do {
            let result = try await body()
            end(nil)
            return result
        } catch {
            end(error)
            throw error
        }
    }

    /// Runs `body` with `span`'s context as the task's, when there is a span.
    static func within<Result>(_ span: (any Span)?, _ body: () async throws -> Result) async throws -> Result {
        guard let span else { return try await body() }
        return try await ServiceContext.$current.withValue(span.context) { try await body() }
    }

    /// What an operation's attempts saw: the last answer (the operation's), and the current attempt's own.
    struct State: Sendable {
        var answer = Answer()
        var attempt = Answer()
        var sent = 0
        var received = 0
        var stalled = false

        mutating func startAttempt() {
            attempt = Answer()
            (sent, received, stalled) = (0, 0, false)
        }

        mutating func take(_ response: OSSHTTPResponse) {
            attempt = Answer(status: response.status, requestId: response.requestId)
            answer = attempt
        }
    }

    /// What a response head says: its status and request ID.
    struct Answer: Sendable {
        var status: Int?
        var requestId = ""

        func describe(_ attributes: inout [String: SpanAttribute]) {
            guard let status else { return }
            attributes["http.response.status_code"] = .int64(Int64(status))
            attributes["oss.request_id"] = .string(requestId)
        }
    }

    /// One operation's (or transfer's) metrics: the factory found once for it, and the dimensions all of them
    /// carry.
    struct Meter: Sendable {
        let factory: any MetricsFactory
        let dimensions: [(String, String)]

        func count(_ label: String, by amount: Int = 1, _ dimensions: [(String, String)]) {
            guard amount > 0 else { return }
            Counter(label: label, dimensions: dimensions, factory: factory).increment(by: amount)
        }

        func count(_ label: String, by amount: Int = 1) { count(label, by: amount, dimensions) }

        func count(_ label: String, by amount: Int = 1, _ more: (String, String)) {
            count(label, by: amount, dimensions + [more])
        }

        func time(_ label: String, since start: ContinuousClock.Instant, _ dimensions: [(String, String)]) {
            let elapsed = ContinuousClock.now - start
            Timer(label: label, dimensions: dimensions, factory: factory).recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
    }

    /// Per operation, outside the retries: a span named for it (`PutObject`), and `oss_requests_total`,
    /// `oss_request_duration_seconds`, `oss_errors_total`, `oss_retries_total`.
    struct Operation: OSSMiddleware {
        let backends: Backends

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard let observation = backends.begin(context.operation, kind: .client, dimensions: backends.dimensions(context))
            else { return try await next(request, context) }
            return try await OSSObservationMiddleware.run(ending: { end(observation, request, context, error: $0) }) {
                try await OSSObservationMiddleware.within(observation.span) {
                    try await Observation.$current.withValue(observation) { try await next(request, context) }
                }
            }
        }

        private func end(
            _ observation: Observation, _ request: OSSMiddlewareRequest, _ context: OSSMiddlewareContext,
            error: (any Error)?
        ) {
            let answer = observation.state.withLockedValue { $0.answer }
            observation.endSpan(error) { values in
                values["oss.operation"] = .string(context.operation)
                values["http.request.method"] = .string(request.method)
                backends.describe(&values, bucket: context.bucket, key: context.key)
                answer.describe(&values)
                values["oss.retry_count"] = .int64(Int64(max(0, context.attemptsMade - 1)))
                if let error {
                    values["oss.error_code"] = .string(OSSOutcome.code(of: error))
                    if let status = OSSOutcome.status(of: error) { values["http.response.status_code"] = .int64(Int64(status)) }
                }
            }
            guard let meter = observation.meter else { return }
            let status = error.map { OSSOutcome.status(of: $0) } ?? answer.status
            let dimensions = meter.dimensions + [("status_class", OSSOutcome.statusClass(status))]
            meter.count("oss_requests_total", dimensions)
            meter.time("oss_request_duration_seconds", since: observation.start, dimensions)
            meter.count("oss_retries_total", by: context.attemptsMade - 1)
            if let error { meter.count("oss_errors_total", ("code", OSSOutcome.code(of: error))) }
        }
    }

    /// Per attempt: `oss_attempts_total`, `oss_bytes_sent_total`, `oss_bytes_received_total`,
    /// `oss_bytes_resent_total`, `oss_stalls_total`; a child span (`PutObject attempt`) with its number and its
    /// answer with ``OSSObservability/recordsAttemptSpans``, else an event on the operation's span when the
    /// attempt fails or stalls.
    struct Attempt: OSSMiddleware {
        let backends: Backends

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard let (observation, span) = begin(context) else { return try await next(request, context) }
            let observed = watch(request, context, observation, span)
            return try await OSSObservationMiddleware.run(ending: { end(observation, span, context, error: $0) }) {
                try await OSSObservationMiddleware.within(span) { try await next(request, observed) }
            }
        }

        /// The operation's observation (or, under another observed client's operation, one of its own) and the
        /// attempt's span; `nil` when nothing is recorded (the operation found no backend).
        private func begin(_ context: OSSMiddlewareContext) -> (Observation, (any Span)?)? {
            let observation: Observation
            if let inherited = Observation.current, inherited.owner == ObjectIdentifier(backends.owner) {
                observation = inherited
            } else if Observation.current != nil,
                let own = backends.begin(
                    context.operation, kind: .client, dimensions: backends.dimensions(context), makesSpan: false)
            {
                // Under another observed client's operation (this client's own operation, had it found a backend,
                // would be the current one): found afresh, with no operation span to note events on.
                observation = own
            } else {
                return nil
            }
            observation.state.withLockedValue { $0.startAttempt() }
            let span =
                backends.recordsAttemptSpans
                ? observation.tracer?.startSpan(
                    context.operation + " attempt", context: ServiceContext.current ?? .topLevel, ofKind: .client)
                : nil
            return (observation, span)
        }

        /// The context passed on, with the observers that keep `observation`'s state.
        private func watch(
            _ request: OSSMiddlewareRequest, _ context: OSSMiddlewareContext, _ observation: Observation,
            _ span: (any Span)?
        ) -> OSSMiddlewareContext {
            let state = observation.state
            var observed = context
            observed.onResponse { response in state.withLockedValue { $0.take(response) } }
            // Byte counts only for metrics, and only where bytes can move (a HEAD answer has no body).
            if observation.meter != nil {
                if request.bodyLength > 0 {
                    observed.onBodyBytesSent { count in state.withLockedValue { $0.sent += count } }
                }
                if request.method != "HEAD" {
                    observed.onBodyBytesReceived { count in state.withLockedValue { $0.received += count } }
                }
            }
            let stallSpan = span ?? observation.span
            let attempt = context.attempt
            observed.onStall {
                state.withLockedValue { $0.stalled = true }
                stallSpan?.addEvent(SpanEvent(name: "stalled", attributes: ["oss.attempt": .int64(Int64(attempt))]))
            }
            return observed
        }

        private func end(
            _ observation: Observation, _ span: (any Span)?, _ context: OSSMiddlewareContext, error: (any Error)?
        ) {
            let state = observation.state.withLockedValue { $0 }
            let attempt = Int64(context.attempt)
            if let span {
                OSSObservationMiddleware.end(span, error) { values in
                    values["oss.attempt"] = .int64(attempt)
                    if attempt > 1 { values["http.request.resend_count"] = .int64(attempt - 1) }
                    state.attempt.describe(&values)
                    if let error { values["oss.error_code"] = .string(OSSOutcome.code(of: error)) }
                }
            } else if let error, let operationSpan = observation.span, operationSpan.isRecording {
                var values: [String: SpanAttribute] = ["oss.attempt": .int64(attempt)]
                state.attempt.describe(&values)
                values["oss.error_code"] = .string(OSSOutcome.code(of: error))
                operationSpan.addEvent(SpanEvent(name: "attempt failed", attributes: SpanAttributes(values)))
            }
            guard let meter = observation.meter else { return }
            let status = state.attempt.status ?? error.flatMap { OSSOutcome.status(of: $0) }
            meter.count("oss_attempts_total", ("status_class", OSSOutcome.statusClass(status)))
            meter.count("oss_bytes_sent_total", by: state.sent)
            meter.count("oss_bytes_received_total", by: state.received)
            if attempt > 1 { meter.count("oss_bytes_resent_total", by: state.sent) }
            if state.stalled { meter.count("oss_stalls_total") }
        }
    }

    /// Per resumable transfer run: a span (`ResumableUpload`, `ResumableDownload`), parent of its operations, and
    /// `oss_transfers_total`, `oss_transfer_duration_seconds`, `oss_transfer_parts_total`,
    /// `oss_transfer_resumes_total`, `oss_transfer_resumed_bytes_total`.
    struct Transfer: OSSTransferMiddleware {
        let backends: Backends

        func handle(
            _ transfer: OSSTransferContext, next: () async throws -> OSSTransferSummary
        ) async throws -> OSSTransferSummary {
            let direction = ("direction", transfer.direction.rawValue)
            guard
                let observation = backends.begin(
                    transfer.direction == .upload ? "ResumableUpload" : "ResumableDownload", kind: .internal,
                    dimensions: backends.bucketDimension ? [direction, ("bucket", transfer.bucket)] : [direction])
            else { return try await next() }
            do {
                let summary = try await OSSObservationMiddleware.within(observation.span) { try await next() }
                end(observation, transfer, summary, error: nil)
                return summary
            } catch {
                end(observation, transfer, nil, error: error)
                throw error
            }
        }

        private func end(
            _ observation: Observation, _ transfer: OSSTransferContext, _ summary: OSSTransferSummary?,
            error: (any Error)?
        ) {
            observation.endSpan(error) { values in
                values["oss.transfer.direction"] = .string(transfer.direction.rawValue)
                backends.describe(&values, bucket: transfer.bucket, key: transfer.key)
                if let summary {
                    values["oss.transfer.total_bytes"] = .int64(summary.totalBytes)
                    values["oss.transfer.resumed_bytes"] = .int64(summary.resumedBytes)
                    values["oss.transfer.parts"] = .int64(Int64(summary.partsTransferred))
                    values["oss.transfer.resumed"] = .bool(summary.isResumed)
                }
                if let error { values["oss.error_code"] = .string(OSSOutcome.code(of: error)) }
            }
            guard let meter = observation.meter else { return }
            guard let summary else {
                meter.count("oss_transfers_total", ("outcome", "failure"))
                return
            }
            meter.count("oss_transfers_total", ("outcome", "success"))
            meter.time("oss_transfer_duration_seconds", since: observation.start, meter.dimensions)
            meter.count("oss_transfer_parts_total", by: summary.partsTransferred)
            if summary.isResumed {
                meter.count("oss_transfer_resumes_total")
                meter.count("oss_transfer_resumed_bytes_total", by: Int(summary.resumedBytes))
            }
        }
    }
}
