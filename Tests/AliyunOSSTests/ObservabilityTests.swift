import AliyunOSS
@testable import AliyunOSSObservability
import CoreMetrics
import Foundation
import InMemoryTracing
import MetricsTestKit
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing
import Tracing

/// The middleware protocol and the metrics and tracing middleware, against the local server. Each test gives its
/// client its own metrics factory and tracer (``OSSObservability``), so nothing is bootstrapped process-wide and
/// parallel tests do not see each other's figures.
@Suite("Middleware, metrics and tracing")
struct ObservabilityTests {
    /// Adds a header before signing.
    struct HeaderMiddleware: OSSMiddleware {
        let name: String
        let value: String

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            var request = request
            try request.setHeader(name, value)
            return try await next(request, context)
        }
    }

    /// Records each response head it sees and each error an operation ends with.
    struct ResponseRecorder: OSSMiddleware {
        let seen = NIOLockedValueBox<[String]>([])

        func handle<Result: Sendable>(
            _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
            next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
        ) async throws -> Result {
            var context = context
            let seen = self.seen
            let line = "\(context.operation) attempt \(context.attempt)"
            context.onResponse { response in seen.withLockedValue { $0.append("\(line): \(response.status)") } }
            do {
                return try await next(request, context)
            } catch {
                seen.withLockedValue { $0.append("\(line) threw") }
                throw error
            }
        }
    }

    @Test func customMiddlewareAddsAHeaderThatIsSignedAndStored() async throws {
        for version in [OSSSignatureVersion.v1, .v4] {
            try await withServerAndClient(
                version: version,
                configure: { $0.attemptMiddleware.append(HeaderMiddleware(name: "x-oss-meta-tenant", value: "acme")) }
            ) { _, client in
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("a".utf8)))
                let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "k"))
                #expect(head.metadata["tenant"] == "acme", "signature \(version)")
            }
        }
    }

    @Test func customMiddlewareObservesEveryAttemptsResponse() async throws {
        let recorder = ResponseRecorder()
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .status(503, code: nil))
        try await withServerAndClient(faults: [fault], configure: { $0.attemptMiddleware.append(recorder) }) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("abc".utf8)))
            let got = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
            #expect(got.content == Data("abc".utf8))
            _ = await serverError { _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "none")) }
        }
        #expect(
            recorder.seen.withLockedValue { $0 } == [
                "PutObject attempt 1: 200", "GetObject attempt 1: 503", "GetObject attempt 1 threw",
                "GetObject attempt 2: 200", "HeadObject attempt 1: 404", "HeadObject attempt 1 threw",
            ])
    }

    @Test func operationMiddlewareRunsOnceAroundTheRetries() async throws {
        let recorder = ResponseRecorder()
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .status(503, code: nil))
        try await withServerAndClient(faults: [fault], configure: { $0.operationMiddleware.append(recorder) }) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("abc".utf8)))
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
        }
        // Above the retries: attempt 0, and it sees both answers of the retried GET through its observer.
        #expect(
            recorder.seen.withLockedValue { $0 } == [
                "PutObject attempt 0: 200", "GetObject attempt 0: 503", "GetObject attempt 0: 200",
            ])
    }

    @Test func withNothingBootstrappedTheMiddlewareStandsAside() {
        // This test process bootstraps neither system (every test here gives its client its own backends).
        #expect(MetricsSystem.factory is NOOPMetricsHandler && InstrumentationSystem.tracer is NoOpTracer)
        typealias Backends = OSSObservationMiddleware.Backends
        #expect(Backends(OSSObservability()).begin("HeadObject", kind: .client, dimensions: []) == nil)
        #expect(Backends(OSSObservability(metricsFactory: TestMetrics())).activeFactory() != nil)
        #expect(Backends(OSSObservability(tracer: InMemoryTracer())).activeTracer() != nil)
        #expect(Backends(OSSObservability(tracer: InMemoryTracer(), recordsSpans: false)).begin("HeadObject", kind: .client, dimensions: []) == nil)
    }

    @Test func putObjectMetricsAndSpans() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        try await withServerAndClient(configure: { $0.observe(OSSObservability(metricsFactory: metrics, tracer: tracer)) }) {
            _, client in
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "photos/me.jpg", data: Data(repeating: 7, count: 1000)))
        }
        let operation = [("operation", "PutObject")]
        #expect(metrics.counterTotal(label: "oss_requests_total", dimensions: operation + [("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: "oss_attempts_total", dimensions: operation + [("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: "oss_bytes_sent_total", dimensions: operation) == 1000)
        #expect(metrics.counters(label: "oss_retries_total").isEmpty)
        #expect(metrics.counters(label: "oss_errors_total").isEmpty)
        #expect(metrics.timers(label: "oss_request_duration_seconds", dimensions: operation + [("status_class", "2xx")]).count == 1)

        let spans = tracer.finishedSpans
        let put = try #require(spans.first { $0.operationName == "PutObject" })
        #expect(spans.count == 1, "one span per operation: attempts get spans of their own only when asked")
        #expect(put.events.isEmpty, "no attempt failed")
        #expect(put.kind == .client)
        #expect(put.attributes.get("oss.bucket") == .string("bkt"))
        #expect(put.attributes.get("oss.operation") == .string("PutObject"))
        #expect(put.attributes.get("http.response.status_code") == .int64(200))
        #expect(put.attributes.get("oss.retry_count") == .int64(0))
        #expect(put.attributes.get("oss.key") == nil, "keys only when the app opts in")
    }

    @Test func objectKeysAreRecordedOnlyOnRequest() async throws {
        let tracer = InMemoryTracer()
        let observability = OSSObservability(
            tracer: tracer, recordsMetrics: false, recordsAttemptSpans: true, recordsObjectKeys: true)
        try await withServerAndClient(configure: { $0.observe(observability) }) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "photos/me.jpg", data: Data("a".utf8)))
        }
        let put = try #require(tracer.finishedSpans.first { $0.operationName == "PutObject" })
        #expect(put.attributes.get("oss.key") == .string("photos/me.jpg"))
    }

    @Test func retriedGetMetricsAndSpans() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .status(503, code: nil))
        let observability = OSSObservability(metricsFactory: metrics, tracer: tracer, recordsAttemptSpans: true)
        let errorBody = try await withServerAndClient(faults: [fault], configure: { $0.observe(observability) }) {
            _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data(repeating: 1, count: 4096)))
            _ = try await tracer.withSpan("app request") { _ in
                try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
            }
            let missing = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "none"))
            }
            return missing?.rawBody.count ?? -1
        }
        let get = [("operation", "GetObject")]
        #expect(metrics.counterTotal(label: "oss_requests_total", dimensions: get + [("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: "oss_requests_total", dimensions: get + [("status_class", "4xx")]) == 1)
        #expect(metrics.counterTotal(label: "oss_attempts_total", dimensions: get + [("status_class", "5xx")]) == 1)
        #expect(metrics.counterTotal(label: "oss_attempts_total", dimensions: get + [("status_class", "2xx")]) == 1)
        #expect(metrics.counterTotal(label: "oss_retries_total", dimensions: get) == 1)
        #expect(metrics.counterTotal(label: "oss_errors_total", dimensions: get + [("code", "NoSuchKey")]) == 1)
        // The object, the NoSuchKey document and the injected 503's document, which the error mapping read.
        #expect(errorBody > 0)
        #expect(metrics.counterTotal(label: "oss_bytes_received_total", dimensions: get) > Int64(4096 + errorBody))

        let spans = tracer.finishedSpans
        let app = try #require(spans.first { $0.operationName == "app request" })
        let gets = spans.filter { $0.operationName == "GetObject" }
        let retried = try #require(gets.first { $0.parentSpanID == app.spanID }, "the task's context is the parent")
        #expect(retried.attributes.get("oss.retry_count") == .int64(1))
        #expect(retried.attributes.get("http.response.status_code") == .int64(200))
        let attempts = spans.filter { $0.operationName == "GetObject attempt" && $0.parentSpanID == retried.spanID }
        #expect(attempts.count == 2)
        #expect(attempts.contains { $0.attributes.get("http.response.status_code") == .int64(503) && $0.status?.code == .error })
        #expect(attempts.contains { $0.attributes.get("oss.attempt") == .int64(2) && $0.attributes.get("http.request.resend_count") == .int64(1) })
        #expect(retried.events.isEmpty, "with spans of their own, attempts note nothing on the operation's span")
        let missing = try #require(gets.first { $0.parentSpanID != app.spanID })
        #expect(missing.attributes.get("oss.error_code") == .string("NoSuchKey"))
        #expect(missing.attributes.get("http.response.status_code") == .int64(404))
    }

    @Test func withoutAttemptSpansAFailedAttemptIsAnEventOfItsOperation() async throws {
        let tracer = InMemoryTracer()
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .status(503, code: nil))
        try await withServerAndClient(faults: [fault], configure: { $0.observe(OSSObservability(tracer: tracer)) }) {
            _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("abc".utf8)))
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
        }
        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName).sorted() == ["GetObject", "PutObject"])
        let get = try #require(spans.first { $0.operationName == "GetObject" })
        #expect(get.attributes.get("oss.retry_count") == .int64(1))
        #expect(get.attributes.get("http.response.status_code") == .int64(200))
        #expect(get.status?.code != .error)
        let event = try #require(get.events.first)
        #expect(get.events.count == 1)
        #expect(event.name == "attempt failed")
        #expect(event.attributes.get("oss.attempt") == .int64(1))
        #expect(event.attributes.get("http.response.status_code") == .int64(503))
        #expect(event.attributes.get("oss.error_code") != nil)
    }

    @Test func aStalledAttemptIsCountedAndNotedOnItsOperation() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let bytes = Data(patternBytes(64 * 1024, seed: 4))
        // The first answer sends 1,000 bytes and then nothing: stall detection gives the attempt up, the retry reads it all.
        let fault = LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .stall(afterBytes: 1000))
        let got = try await withServerAndClient(
            faults: [fault],
            configure: {
                $0.timeouts.stall = .milliseconds(500)
                $0.observe(OSSObservability(metricsFactory: metrics, tracer: tracer))
            }
        ) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: bytes))
            return try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k")).content
        }
        #expect(got == bytes)
        #expect(metrics.counterTotal(label: "oss_stalls_total", dimensions: [("operation", "GetObject")]) == 1)
        let get = try #require(tracer.finishedSpans.first { $0.operationName == "GetObject" })
        #expect(get.attributes.get("oss.retry_count") == .int64(1))
        #expect(get.events.map(\.name) == ["stalled", "attempt failed"])
        #expect(get.events.allSatisfy { $0.attributes.get("oss.attempt") == .int64(1) })
    }

    @Test func resumableUploadMetricsAndSpans() async throws {
        let metrics = TestMetrics()
        let tracer = InMemoryTracer()
        let bytes = patternBytes(400 * 1024, seed: 9)
        let file = try makeTemporaryFile(bytes)
        let records = try temporaryURL()
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: records)
        }
        // The second part's connection drops, with no retries: the first run fails and keeps its record.
        let fault = LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(2), action: .dropConnection(afterBytes: 1000))
        let droppedCode = try await withServerAndClient(
            faults: [fault],
            configure: {
                $0.maxRetryCount = 0
                $0.observe(OSSObservability(metricsFactory: metrics, tracer: tracer))
            }
        ) { _, client in
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "big", uploadingFileURL: file, partSize: 100 * 1024, threadNum: 1,
                recordDirectoryPath: records.path)
            let dropped = await thrownClientError { _ = try await client.resumableUpload(request) }
            let result = try await client.resumableUpload(request)
            #expect(result.resumedBytes == 100 * 1024)
            return try #require(dropped).code.rawValue
        }
        let upload = [("direction", "upload")]
        #expect(metrics.counterTotal(label: "oss_transfers_total", dimensions: upload + [("outcome", "failure")]) == 1)
        #expect(metrics.counterTotal(label: "oss_transfers_total", dimensions: upload + [("outcome", "success")]) == 1)
        #expect(metrics.counterTotal(label: "oss_transfer_resumes_total", dimensions: upload) == 1)
        #expect(metrics.counterTotal(label: "oss_transfer_resumed_bytes_total", dimensions: upload) == 100 * 1024)
        #expect(metrics.counterTotal(label: "oss_transfer_parts_total", dimensions: upload) == 3)
        #expect(metrics.counterTotal(label: "oss_requests_total", dimensions: [("operation", "UploadPart"), ("status_class", "2xx")]) == 4)

        let spans = tracer.finishedSpans
        let transfers = spans.filter { $0.operationName == "ResumableUpload" }
        #expect(transfers.count == 2)
        let resumed = try #require(transfers.first { $0.attributes.get("oss.transfer.resumed") == .bool(true) })
        #expect(resumed.attributes.get("oss.bucket") == .string("bkt"))
        #expect(resumed.attributes.get("oss.transfer.parts") == .int64(3))
        #expect(resumed.attributes.get("oss.transfer.total_bytes") == .int64(Int64(bytes.count)))
        let parts = spans.filter { $0.operationName == "UploadPart" && $0.parentSpanID == resumed.spanID }
        #expect(parts.count == 3, "the transfer's operations are its children")
        let failed = try #require(transfers.first { $0.spanID != resumed.spanID })
        #expect(failed.attributes.get("oss.error_code") == .string(droppedCode))
    }

    /// A tracer whose sampler said no: its spans record nothing, and count the attribute writes they get.
    final class UnsampledTracer: Tracer, Sendable {
        let names = NIOLockedValueBox<[String]>([])
        let attributeWrites = NIOLockedValueBox(0)

        final class Span: Tracing.Span, Sendable {
            let context: ServiceContext
            let tracer: UnsampledTracer
            let name: String

            init(_ name: String, context: ServiceContext, tracer: UnsampledTracer) {
                self.name = name
                self.context = context
                self.tracer = tracer
            }

            var operationName: String {
                get { name }
                set {}
            }
            var attributes: SpanAttributes {
                get { [:] }
                set { tracer.attributeWrites.withLockedValue { $0 += 1 } }
            }
            var isRecording: Bool { false }
            func setStatus(_ status: SpanStatus) {}
            func addEvent(_ event: SpanEvent) {}
            func recordError(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> some TracerInstant) {}
            func addLink(_ link: SpanLink) {}
            func end(at instant: @autoclosure () -> some TracerInstant) {}
        }

        func startSpan<Instant: TracerInstant>(
            _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
            at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
        ) -> Span {
            names.withLockedValue { $0.append(operationName) }
            return Span(operationName, context: context(), tracer: self)
        }

        func forceFlush() {}
        func extract<Carrier, Extract: Extractor>(
            _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
        ) where Extract.Carrier == Carrier {}
        func inject<Carrier, Inject: Injector>(
            _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
        ) where Inject.Carrier == Carrier {}
    }

    @Test func spansTheTracerDoesNotRecordGetNoAttributes() async throws {
        let tracer = UnsampledTracer()
        let observability = OSSObservability(
            tracer: tracer, recordsMetrics: false, recordsAttemptSpans: true, recordsObjectKeys: true)
        try await withServerAndClient(configure: { $0.observe(observability) }) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("a".utf8)))
            _ = await serverError { _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "none")) }
        }
        #expect(tracer.names.withLockedValue { $0 } == ["PutObject", "PutObject attempt", "HeadObject", "HeadObject attempt"])
        #expect(tracer.attributeWrites.withLockedValue { $0 } == 0)
    }
}
