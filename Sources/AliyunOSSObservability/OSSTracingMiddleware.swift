import AliyunOSS
import Tracing

/// The tracing middleware (span names and attributes in the DocC article "Metrics and tracing"): one value
/// holding the three layers. Spans start in the task's `ServiceContext`, so an
/// operation's span is a child of the app's current span, an attempt's a child of its operation's, and the
/// operations of a resumable transfer children of the transfer's.
///
/// A span's attributes are written once, when it ends (a tracer exports a span when it ends), and not at all when
/// the tracer does not record it.
struct OSSTracingMiddleware: Sendable {
    let operation: Operation
    let attempt: Attempt
    let transfer: Transfer

    init(_ observability: OSSObservability) {
        let source = Source(tracer: observability.tracer, recordsObjectKeys: observability.recordsObjectKeys)
        operation = Operation(source: source)
        attempt = Attempt(source: source)
        transfer = Transfer(source: source)
    }

    /// Starts spans with the client's tracer or the process-wide one.
    struct Source: Sendable {
        let tracer: (any Tracer)?
        let recordsObjectKeys: Bool

        /// Where this request's spans go: the client's tracer, or the process-wide one the app bootstrapped (or
        /// bound to the task); `nil` when there is neither, and the middleware passes requests straight through (no
        /// span, no context, no attribute formatting).
        func activeTracer() -> (any Tracer)? {
            if let tracer { return tracer }
            // Nothing bootstrapped is a `NoOpInstrument`: one concrete type check, without the protocol casts
            // `InstrumentationSystem.tracer` makes to find a tracer among the instruments.
            let instrument = InstrumentationSystem.instrument
            if instrument is NoOpInstrument { return nil }
            let tracer = InstrumentationSystem.tracer
            return tracer is NoOpTracer ? nil : tracer
        }

        var isActive: Bool { activeTracer() != nil }

        /// Runs `body` in a span of `tracer`, the span's context being the task's for the time `body` runs.
        /// `attributes` gives the span's attributes when it ends, from what `body` returned or threw.
        static func withSpan<T: Tracer, Result>(
            _ tracer: T, _ name: String, kind: SpanKind,
            attributes: (_ result: Result?, _ error: (any Error)?) -> SpanAttributes,
            _ body: (any Span) async throws -> Result
        ) async throws -> Result {
            let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: kind)
            defer { span.end() }
            do {
                let result = try await ServiceContext.$current.withValue(span.context) { try await body(span) }
                if span.isRecording { span.attributes = attributes(result, nil) }
                return result
            } catch {
                if span.isRecording { span.attributes = attributes(nil, error) }
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
        }

        func describe(_ attributes: inout SpanAttributes, bucket: String?, key: String?) {
            if let bucket { attributes["oss.bucket"] = bucket }
            if recordsObjectKeys, let key { attributes["oss.key"] = key }
        }
    }

    /// What a response head says on a span: its status and request ID (the last answer's, for an operation).
    struct Answer: Sendable {
        var status: Int?
        var requestId = ""

        func describe(_ attributes: inout SpanAttributes) {
            guard let status else { return }
            attributes["http.response.status_code"] = status
            attributes["oss.request_id"] = requestId
        }
    }

    /// A span per operation (named for it: `PutObject`), around its retries.
    struct Operation: OSSMiddleware {
        let source: Source

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard let tracer = source.activeTracer() else { return try await next(request, context) }
            let answer = OSSLockedValue(Answer())
            let method = request.method
            return try await Source.withSpan(
                tracer, context.operation, kind: .client,
                attributes: { _, error in
                    var attributes = SpanAttributes()
                    attributes["oss.operation"] = context.operation
                    attributes["http.request.method"] = method
                    source.describe(&attributes, bucket: context.bucket, key: context.key)
                    answer.withLockedValue { $0 }.describe(&attributes)
                    attributes["oss.retry_count"] = max(0, context.attemptsMade - 1)
                    if let error {
                        attributes["oss.error_code"] = OSSOutcome.code(of: error)
                        if let status = OSSOutcome.status(of: error) { attributes["http.response.status_code"] = status }
                    }
                    return attributes
                }
            ) { _ in
                var observed = context
                observed.onResponse { response in
                    answer.withLockedValue { $0 = Answer(status: response.status, requestId: response.requestId) }
                }
                return try await next(request, observed)
            }
        }
    }

    /// A child span per attempt (`PutObject attempt`), with its number and its answer.
    struct Attempt: OSSMiddleware {
        let source: Source

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard let tracer = source.activeTracer() else { return try await next(request, context) }
            let answer = OSSLockedValue(Answer())
            return try await Source.withSpan(
                tracer, context.operation + " attempt", kind: .client,
                attributes: { _, error in
                    var attributes = SpanAttributes()
                    attributes["oss.attempt"] = context.attempt
                    if context.attempt > 1 { attributes["http.request.resend_count"] = context.attempt - 1 }
                    answer.withLockedValue { $0 }.describe(&attributes)
                    if let error { attributes["oss.error_code"] = OSSOutcome.code(of: error) }
                    return attributes
                }
            ) { span in
                var observed = context
                observed.onResponse { response in
                    answer.withLockedValue { $0 = Answer(status: response.status, requestId: response.requestId) }
                }
                observed.onStall { span.addEvent("stalled") }
                return try await next(request, observed)
            }
        }
    }

    /// A span per resumable transfer run (`ResumableUpload`, `ResumableDownload`), parent of its operations.
    struct Transfer: OSSTransferMiddleware {
        let source: Source

        func handle(
            _ transfer: OSSTransferContext, next: () async throws -> OSSTransferSummary
        ) async throws -> OSSTransferSummary {
            guard let tracer = source.activeTracer() else { return try await next() }
            let name = transfer.direction == .upload ? "ResumableUpload" : "ResumableDownload"
            return try await Source.withSpan(
                tracer, name, kind: .internal,
                attributes: { summary, error in
                    var attributes = SpanAttributes()
                    attributes["oss.transfer.direction"] = transfer.direction.rawValue
                    source.describe(&attributes, bucket: transfer.bucket, key: transfer.key)
                    if let summary {
                        attributes["oss.transfer.total_bytes"] = summary.totalBytes
                        attributes["oss.transfer.resumed_bytes"] = summary.resumedBytes
                        attributes["oss.transfer.parts"] = summary.partsTransferred
                        attributes["oss.transfer.resumed"] = summary.isResumed
                    }
                    if let error { attributes["oss.error_code"] = OSSOutcome.code(of: error) }
                    return attributes
                }
            ) { _ in try await next() }
        }
    }
}
