// A request-heavy benchmark of the pipeline: HEADs and small PUTs with metrics and tracing off, installed but not
// bootstrapped, or bootstrapped with do-nothing backends. Run through scripts/bench-requests.sh.
//
//   oss-request-bench ENDPOINT BUCKET [rounds] [heads per block] [puts per block] [concurrency]
//
// One process, two clients: one without the observability middleware ("off") and one with it. The blocks of
// requests alternate between the two, in a rotated order each round, and each block's CPU time (user + system of
// this process) is taken by itself, so slow and fast moments of a shared machine fall on both modes alike. First
// nothing is bootstrapped (the second client is "installed"); then swift-metrics and swift-distributed-tracing are
// bootstrapped process-wide with do-nothing backends (real handler and span objects) and the same clients run again
// (the second client is "on"; the first was made before the bootstrap, so its AsyncHTTPClient has no tracer).
//
// ENDPOINT `in-process` sends every request to a transport in this process that answers at once (no socket, no
// server): what is left is the SDK's own per-request work, the part metrics and tracing add to.
//
// Prints, per phase and request kind, the median CPU microseconds per request of each mode, and the median over the
// rounds of each round's own ratio of the second client to the first.
import AliyunOSS
import AliyunOSSObservability
import OSSCRC64
import CoreMetrics
import Foundation
import NIOConcurrencyHelpers
import Tracing

#if canImport(Glibc)
import Glibc
#endif

/// A metrics backend that keeps nothing: real handler objects, no recording.
final class DiscardingMetrics: MetricsFactory, CounterHandler, FloatingPointCounterHandler, MeterHandler,
    RecorderHandler, TimerHandler
{
    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler { self }
    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler { self }
    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler { self }
    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler { self }
    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler { self }
    func destroyCounter(_ handler: any CounterHandler) {}
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
    func destroyMeter(_ handler: any MeterHandler) {}
    func destroyRecorder(_ handler: any RecorderHandler) {}
    func destroyTimer(_ handler: any TimerHandler) {}
    func increment(by: Int64) {}
    func increment(by: Double) {}
    func reset() {}
    func set(_ value: Int64) {}
    func set(_ value: Double) {}
    func decrement(by: Double) {}
    func record(_ value: Int64) {}
    func record(_ value: Double) {}
    func recordNanoseconds(_ duration: Int64) {}
}

/// A tracer whose spans hold their attributes and are then dropped (what a real tracer does before exporting).
struct DiscardingTracer: Tracer {
    final class Span: Tracing.Span {
        let context: ServiceContext
        private let state: NIOLockedValueBox<(name: String, attributes: SpanAttributes, status: SpanStatus?)>

        init(_ name: String, context: ServiceContext) {
            self.context = context
            state = NIOLockedValueBox((name, [:], nil))
        }

        var operationName: String {
            get { state.withLockedValue { $0.name } }
            set { state.withLockedValue { $0.name = newValue } }
        }
        var attributes: SpanAttributes {
            get { state.withLockedValue { $0.attributes } }
            set { state.withLockedValue { $0.attributes = newValue } }
        }
        var isRecording: Bool { true }
        func setStatus(_ status: SpanStatus) { state.withLockedValue { $0.status = status } }
        func addEvent(_ event: SpanEvent) {}
        func recordError(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> some TracerInstant) {}
        func addLink(_ link: SpanLink) {}
        func end(at instant: @autoclosure () -> some TracerInstant) {}
    }

    func startSpan<Instant: TracerInstant>(
        _ operationName: String, context: @autoclosure () -> ServiceContext, ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant, function: String, file fileID: String, line: UInt
    ) -> Span {
        Span(operationName, context: context())
    }

    func forceFlush() {}
    func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {}
    func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {}
}

/// Answers every request at once, as the local server would: a HEAD with an object's headers, a PUT with its ETag
/// and the body's CRC-64 (which the client checks). The body is read as a transport would send it.
struct InProcessTransport: OSSHTTPTransport {
    func send<Result: Sendable>(
        _ request: OSSHTTPRequest, handler: (OSSHTTPResponse) async throws -> Result
    ) async throws -> Result {
        var crc = CRC64()
        if case .bytes(let data) = request.body {
            data.withUnsafeBytes { bytes in
                crc.update(bytes)
                request.onChunkSent?(bytes)
            }
        }
        var headers = [
            "x-oss-request-id": "5C06A3B67B8B5A3DA422299D", "date": "Sat, 28 Nov 2026 12:00:00 GMT",
            "etag": "\"0CC175B9C0F1B6A831C399E269772661\"", "server": "AliyunOSS", "content-length": "0",
        ]
        if request.method == "HEAD" {
            headers["content-length"] = "1024"
            headers["content-type"] = "application/octet-stream"
            headers["last-modified"] = "Sat, 28 Nov 2026 11:00:00 GMT"
            headers["x-oss-object-type"] = "Normal"
            headers["x-oss-storage-class"] = "Standard"
        }
        headers["x-oss-hash-crc64ecma"] = request.method == "HEAD" ? "6792946637930434305" : crc.headerValue
        return try await handler(OSSHTTPResponse(status: 200, headers: headers, body: OSSResponseBody(chunks: [])))
    }

    func shutdown() async throws {}
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs `count` requests with `concurrency` workers; returns this process's CPU seconds over the block.
func block(_ count: Int, concurrency: Int, _ request: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
    let cpu = cpuSeconds()
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var index = worker
                while index < count {
                    try await request(index)
                    index += concurrency
                }
            }
        }
        try await group.waitForAll()
    }
    return cpuSeconds() - cpu
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// The least the same spans and metrics cost through swift-distributed-tracing and swift-metrics, for comparison
/// with the SDK's middleware in the same run: per layer, the tracer and factory the app bootstrapped, one span made
/// current for the layer's work, the same metric objects; no attributes, no response watching, every request taken
/// as a success.
struct FloorMiddleware: OSSMiddleware {
    let isAttempt: Bool

    func handle<Result: Sendable>(
        _ request: OSSMiddlewareRequest, context: OSSMiddlewareContext,
        next: (OSSMiddlewareRequest, OSSMiddlewareContext) async throws -> Result
    ) async throws -> Result {
        let factory = MetricsSystem.factory
        let span = InstrumentationSystem.tracer.startSpan(
            context.operation, context: ServiceContext.current ?? .topLevel, ofKind: .client)
        defer { span.end() }
        let start = ContinuousClock.now
        let result = try await ServiceContext.$current.withValue(span.context) { try await next(request, context) }
        let dimensions = [("operation", context.operation), ("status_class", "2xx")]
        if isAttempt {
            Counter(label: "oss_attempts_total", dimensions: dimensions, factory: factory).increment()
            if request.bodyLength > 0 {
                Counter(label: "oss_bytes_sent_total", dimensions: dimensions, factory: factory).increment(by: request.bodyLength)
            }
        } else {
            Counter(label: "oss_requests_total", dimensions: dimensions, factory: factory).increment()
            let elapsed = ContinuousClock.now - start
            Timer(label: "oss_request_duration_seconds", dimensions: dimensions, factory: factory).recordNanoseconds(
                elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
        }
        return result
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data(
        "usage: oss-request-bench ENDPOINT|in-process BUCKET [rounds] [heads per block] [puts per block] [concurrency]\n".utf8))
    exit(2)
}
func argument(_ index: Int, _ fallback: Int) -> Int { arguments.count > index ? Int(arguments[index]) ?? fallback : fallback }
let (endpoint, bucket) = (arguments[1], arguments[2])
let rounds = argument(3, 20)
let heads = argument(4, 500)
let puts = argument(5, 100)
let concurrency = argument(6, 8)

let credentials = OSSStaticCredentialProvider(
    accessKeyId: ProcessInfo.processInfo.environment["OSS_ACCESS_KEY_ID"] ?? "",
    accessKeySecret: ProcessInfo.processInfo.environment["OSS_ACCESS_KEY_SECRET"] ?? "")
enum Mode: String { case off, observed, floor }
func makeClient(_ mode: Mode) throws -> OSSClient {
    var configuration = OSSClientConfiguration()
    configuration.addressing = .pathStyle
    switch mode {
    case .off: break
    case .observed: configuration.observe(OSSObservability())
    case .floor:
        configuration.operationMiddleware.append(FloorMiddleware(isAttempt: false))
        configuration.attemptMiddleware.append(FloorMiddleware(isAttempt: true))
    }
    guard endpoint == "in-process" else {
        return try OSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration)
    }
    return try OSSClient(
        endpoint: "http://127.0.0.1:9", credentialProvider: credentials, configuration: configuration,
        transport: InProcessTransport())
}
// The clients exist before the bootstrap (as an app's would be made at start): the first one's AsyncHTTPClient
// keeps no tracer, as in a process that bootstraps nothing.
let clients = [try makeClient(.off), try makeClient(.observed), try makeClient(.floor)]
let payload = Data(repeating: 0x61, count: 1024)
_ = try await clients[0].putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: "head-target", data: payload))

enum Kind: String, CaseIterable { case head = "HEAD", put = "PUT" }
func run(_ kind: Kind, on client: OSSClient, count: Int) async throws -> Double {
    switch kind {
    case .head:
        try await block(count, concurrency: concurrency) { _ in
            _ = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: "head-target"))
        }
    case .put:
        try await block(count, concurrency: concurrency) { index in
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: bucket, objectKey: "small/\(index % 100)", data: payload))
        }
    }
}

func f(_ value: Double, _ format: String = "%.1f") -> String { String(format: format, value) }
print("\(endpoint == "in-process" ? "in-process transport" : endpoint): \(rounds) rounds, blocks of \(heads) HEADs and \(puts) PUTs of 1 KiB, \(concurrency) at a time")
print("CPU µs per request: the median block; beside it, each mode against off in the same round: median [quartiles]")
for phase in ["not bootstrapped", "bootstrapped"] {
    if phase == "bootstrapped" {
        MetricsSystem.bootstrap(DiscardingMetrics())
        InstrumentationSystem.bootstrap(DiscardingTracer())
    }
    // Not bootstrapped, the observed client is "installed" and the floor middleware would record to no-op backends.
    let modes: [(name: String, client: OSSClient)] =
        phase == "bootstrapped"
        ? [("off", clients[0]), ("on", clients[1]), ("floor", clients[2])] : [("off", clients[0]), ("installed", clients[1])]
    // Warm-up: connections, caches, the first use of each metric and span type.
    for mode in modes { for kind in Kind.allCases { _ = try await run(kind, on: mode.client, count: 200) } }
    var perRequest: [Kind: [[Double]]] = [.head: Array(repeating: [], count: modes.count), .put: Array(repeating: [], count: modes.count)]
    for round in 0..<rounds {
        for kind in Kind.allCases {
            let count = kind == .head ? heads : puts
            guard count > 0 else { continue }
            for step in modes.indices {
                let which = (step + round) % modes.count
                let cpu = try await run(kind, on: modes[which].client, count: count)
                perRequest[kind]![which].append(cpu / Double(count) * 1_000_000)
            }
        }
    }
    for kind in Kind.allCases where !perRequest[kind]![0].isEmpty {
        let off = perRequest[kind]![0]
        var line = "\(phase), \(kind.rawValue):".padding(toLength: 24, withPad: " ", startingAt: 0) + "off \(f(median(off)))"
        for index in modes.indices.dropFirst() {
            let ratios = zip(off, perRequest[kind]![index]).map { ($1 / $0 - 1) * 100 }.sorted()
            line += "   \(modes[index].name) \(f(median(perRequest[kind]![index]))) \(f(median(ratios), "%+.1f"))%"
                + " [\(f(ratios[ratios.count / 4], "%+.1f")), \(f(ratios[3 * ratios.count / 4], "%+.1f"))]"
        }
        print(line)
    }
}
for client in clients { try await client.shutdown() }
