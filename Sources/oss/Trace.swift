import AliyunOSS
import AliyunOSSObservability
import Foundation
import Instrumentation
import NIOConcurrencyHelpers
import ServiceContextModule
import Tracing

/// `--trace`: the request timeline, printed on stderr from the same spans the SDK's tracing middleware makes for
/// any tracer (``OSSObservability``): one line per operation, attempt and resumable transfer as it ends, indented
/// under its parent, with its start (seconds since the command began), its duration and its attributes:
///
///     trace   0.004s   2.1 ms  PutObject  oss.bucket=bkt oss.key=a.txt http.response.status_code=200 ...
///     trace   0.002s   3.0 ms    PutObject attempt  oss.attempt=1 http.response.status_code=503 ...
///
/// Lines stream as spans end (nothing is held beyond the spans in flight), so a long sync prints as it goes.
/// Requests carry no secrets in their spans: no signature, no credential, no URL query.
final class TimelineTracer: Tracer, Sendable {
    typealias Span = TimelineSpan

    /// Where a span's line goes (stderr in the CLI).
    let write: @Sendable (String) -> Void
    /// When the command began, in the tracer clock's nanoseconds since the epoch.
    let origin: UInt64

    init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
        origin = DefaultTracerClock.now.nanosecondsSinceEpoch
    }

    /// A span's place in the tree, carried in its `ServiceContext` so children indent under it.
    enum DepthKey: ServiceContextKey {
        typealias Value = Int
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> TimelineSpan {
        var context = context()
        let depth = context[DepthKey.self].map { $0 + 1 } ?? 0
        context[DepthKey.self] = depth
        return TimelineSpan(
            operationName: operationName, context: context, depth: depth,
            start: instant().nanosecondsSinceEpoch, tracer: self)
    }

    func forceFlush() {}

    func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject.Carrier == Carrier {}

    func extract<Carrier, Extract: Extractor>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract.Carrier == Carrier {}

    /// The line for a span that ran from `start` to `end` (nanoseconds since the epoch).
    func line(_ name: String, depth: Int, start: UInt64, end: UInt64, attributes: SpanAttributes, error: String?) -> String {
        let offset = Double(start &- min(start, origin)) / 1e9
        let duration = Double(end &- min(end, start)) / 1e6
        var fields: [String] = []
        attributes.forEach { key, attribute in
            guard key != "oss.operation" else { return }
            fields.append("\(key)=\(Self.text(attribute))")
        }
        fields.sort()
        if let error { fields.append("error=\(error)") }
        let indent = String(repeating: "  ", count: depth)
        return "trace " + String(format: "%8.3fs %8.1f ms  ", offset, duration) + indent + name
            + (fields.isEmpty ? "" : "  " + fields.joined(separator: " "))
    }

    static func text(_ attribute: SpanAttribute) -> String {
        switch attribute {
        case .int32(let value): String(value)
        case .int64(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): String(value)
        case .string(let value): value
        default: "\(attribute)"
        }
    }
}

/// One span of ``TimelineTracer``: its line is written when it ends.
final class TimelineSpan: Span, Sendable {
    private struct State {
        var operationName: String
        var attributes = SpanAttributes()
        var error: String?
        var ended = false
    }

    let context: ServiceContext
    let depth: Int
    let start: UInt64
    let tracer: TimelineTracer
    private let state: NIOLockedValueBox<State>

    init(operationName: String, context: ServiceContext, depth: Int, start: UInt64, tracer: TimelineTracer) {
        self.context = context
        self.depth = depth
        self.start = start
        self.tracer = tracer
        state = NIOLockedValueBox(State(operationName: operationName))
    }

    var operationName: String {
        get { state.withLockedValue { $0.operationName } }
        set { state.withLockedValue { $0.operationName = newValue } }
    }

    var attributes: SpanAttributes {
        get { state.withLockedValue { $0.attributes } }
        set { state.withLockedValue { $0.attributes = newValue } }
    }

    var isRecording: Bool { state.withLockedValue { !$0.ended } }

    func setStatus(_ status: SpanStatus) {
        guard status.code == .error else { return }
        state.withLockedValue { $0.error = $0.error ?? status.message ?? "error" }
    }

    func addEvent(_ event: SpanEvent) {}

    func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        // The error's type, not its text: a message could quote a request.
        state.withLockedValue { $0.error = "\(type(of: error))" }
    }

    func addLink(_ link: SpanLink) {}

    func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let end = instant().nanosecondsSinceEpoch
        let finished: State? = state.withLockedValue { state in
            guard !state.ended else { return nil }
            state.ended = true
            return state
        }
        guard let finished else { return }
        tracer.write(
            tracer.line(
                finished.operationName, depth: depth, start: start, end: end, attributes: finished.attributes,
                error: finished.error))
    }
}

extension OSSClientConfiguration {
    /// `--trace`: spans of every operation, attempt and transfer printed on stderr as they end (object keys
    /// included: the trace is the user's own terminal).
    mutating func printTimeline() {
        let tracer = TimelineTracer { StandardStreams.writeError(Data(($0 + "\n").utf8)) }
        observe(OSSObservability(tracer: tracer, recordsMetrics: false, recordsAttemptSpans: true, recordsObjectKeys: true))
    }
}
