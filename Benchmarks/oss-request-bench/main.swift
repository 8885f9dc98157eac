// A request-heavy benchmark of the pipeline: HEADs and small PUTs against a running local server, with metrics and
// tracing off, installed but not bootstrapped, or bootstrapped with do-nothing backends. One mode per process (a
// process-wide bootstrap cannot be undone). Run through scripts/bench-requests.sh, which starts the server, alternates
// the modes and prints the medians side by side.
//
//   oss-request-bench ENDPOINT BUCKET off|installed|on [heads] [puts] [concurrency]
//
// Prints one line: `mode heads_wall_s heads_cpu_s puts_wall_s puts_cpu_s` (CPU: this process's user + system time).
import AliyunOSS
import AliyunOSSObservability
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

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs `count` requests with `concurrency` workers; returns (wall, cpu) seconds.
func timed(_ count: Int, concurrency: Int, _ request: @escaping @Sendable (Int) async throws -> Void) async throws -> (Double, Double) {
    let cpu = cpuSeconds()
    let start = ContinuousClock.now
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
    let wall = ContinuousClock.now - start
    return (Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18, cpuSeconds() - cpu)
}

let arguments = CommandLine.arguments
guard arguments.count >= 4, ["off", "installed", "on"].contains(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: oss-request-bench ENDPOINT BUCKET off|installed|on [heads] [puts] [concurrency]\n".utf8))
    exit(2)
}
let (endpoint, bucket, mode) = (arguments[1], arguments[2], arguments[3])
let heads = arguments.count > 4 ? Int(arguments[4]) ?? 10_000 : 10_000
let puts = arguments.count > 5 ? Int(arguments[5]) ?? 2_000 : 2_000
let concurrency = arguments.count > 6 ? Int(arguments[6]) ?? 8 : 8

var configuration = OSSClientConfiguration()
configuration.addressing = .pathStyle
if mode != "off" { configuration.observe(OSSObservability()) }
if mode == "on" {
    MetricsSystem.bootstrap(DiscardingMetrics())
    InstrumentationSystem.bootstrap(DiscardingTracer())
}
let credentials = OSSStaticCredentialProvider(
    accessKeyId: ProcessInfo.processInfo.environment["OSS_ACCESS_KEY_ID"] ?? "",
    accessKeySecret: ProcessInfo.processInfo.environment["OSS_ACCESS_KEY_SECRET"] ?? "")
let client = try OSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration)
let payload = Data(repeating: 0x61, count: 1024)
_ = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: "head-target", data: payload))
// Warm-up: connections, caches.
_ = try await timed(200, concurrency: concurrency) { _ in
    _ = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: "head-target"))
}
let (headWall, headCPU) = try await timed(heads, concurrency: concurrency) { _ in
    _ = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: "head-target"))
}
let (putWall, putCPU) = try await timed(puts, concurrency: concurrency) { index in
    _ = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: "small/\(index % 100)", data: payload))
}
try await client.shutdown()
print(mode, String(format: "%.3f %.3f %.3f %.3f", headWall, headCPU, putWall, putCPU))
