import AliyunOSS
import Tracing

/// The tracing middleware (span names and attributes in the DocC article "Metrics and tracing"): one value
/// holding the three layers. Spans start in the task's `ServiceContext`, so an
/// operation's span is a child of the app's current span, an attempt's a child of its operation's, and the
/// operations of a resumable transfer children of the transfer's.
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

        func withSpan<Result>(
            _ name: String, kind: SpanKind, _ body: (any Span) async throws -> Result
        ) async throws -> Result {
            let tracer: any Tracer = self.tracer ?? InstrumentationSystem.tracer
            return try await Self.withSpan(tracer, name, kind: kind, body)
        }

        /// Whether spans go anywhere: a tracer of the client's own, or a process-wide one the app bootstrapped. With
        /// neither, the middleware passes requests straight through (no span, no context, no attribute formatting).
        var isActive: Bool { tracer != nil || !(InstrumentationSystem.tracer is NoOpTracer) }

        private static func withSpan<T: Tracer, Result>(
            _ tracer: T, _ name: String, kind: SpanKind, _ body: (any Span) async throws -> Result
        ) async throws -> Result {
            let span = tracer.startSpan(name, context: ServiceContext.current ?? .topLevel, ofKind: kind)
            defer { span.end() }
            do {
                return try await ServiceContext.$current.withValue(span.context) { try await body(span) }
            } catch {
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error))
                throw error
            }
        }

        func describe(_ span: any Span, bucket: String?, key: String?) {
            if let bucket { span.attributes["oss.bucket"] = bucket }
            if recordsObjectKeys, let key { span.attributes["oss.key"] = key }
        }
    }

    /// A span per operation (named for it: `PutObject`), around its retries.
    struct Operation: OSSMiddleware {
        let source: Source

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            guard source.isActive else { return try await next(request, context) }
            return try await source.withSpan(context.operation, kind: .client) { span in
                span.attributes["oss.operation"] = context.operation
                span.attributes["http.request.method"] = request.method
                source.describe(span, bucket: context.bucket, key: context.key)
                var observed = context
                observed.onResponse { response in
                    span.attributes["http.response.status_code"] = response.status
                    span.attributes["oss.request_id"] = response.requestId
                }
                do {
                    let result = try await next(request, observed)
                    span.attributes["oss.retry_count"] = max(0, context.attemptsMade - 1)
                    return result
                } catch {
                    span.attributes["oss.retry_count"] = max(0, context.attemptsMade - 1)
                    span.attributes["oss.error_code"] = OSSOutcome.code(of: error)
                    if let status = OSSOutcome.status(of: error) { span.attributes["http.response.status_code"] = status }
                    throw error
                }
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
            guard source.isActive else { return try await next(request, context) }
            return try await source.withSpan("\(context.operation) attempt", kind: .client) { span in
                span.attributes["oss.attempt"] = context.attempt
                if context.attempt > 1 { span.attributes["http.request.resend_count"] = context.attempt - 1 }
                var observed = context
                observed.onResponse { response in
                    span.attributes["http.response.status_code"] = response.status
                    span.attributes["oss.request_id"] = response.requestId
                }
                observed.onStall { span.addEvent("stalled") }
                do {
                    return try await next(request, observed)
                } catch {
                    span.attributes["oss.error_code"] = OSSOutcome.code(of: error)
                    throw error
                }
            }
        }
    }

    /// A span per resumable transfer run (`ResumableUpload`, `ResumableDownload`), parent of its operations.
    struct Transfer: OSSTransferMiddleware {
        let source: Source

        func handle(
            _ transfer: OSSTransferContext, next: () async throws -> OSSTransferSummary
        ) async throws -> OSSTransferSummary {
            guard source.isActive else { return try await next() }
            let name = transfer.direction == .upload ? "ResumableUpload" : "ResumableDownload"
            return try await source.withSpan(name, kind: .internal) { span in
                span.attributes["oss.transfer.direction"] = transfer.direction.rawValue
                source.describe(span, bucket: transfer.bucket, key: transfer.key)
                do {
                    let summary = try await next()
                    span.attributes["oss.transfer.total_bytes"] = summary.totalBytes
                    span.attributes["oss.transfer.resumed_bytes"] = summary.resumedBytes
                    span.attributes["oss.transfer.parts"] = summary.partsTransferred
                    span.attributes["oss.transfer.resumed"] = summary.isResumed
                    return summary
                } catch {
                    span.attributes["oss.error_code"] = OSSOutcome.code(of: error)
                    throw error
                }
            }
        }
    }
}
