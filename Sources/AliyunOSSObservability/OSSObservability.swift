import AliyunOSS
import CoreMetrics
import Tracing

/// Metrics (swift-metrics) and tracing (swift-distributed-tracing) for an ``AliyunOSS/OSSClient``: middleware that
/// ``AliyunOSS/OSSClientConfiguration/observe(_:)`` installs in the client's pipeline.
///
/// ```swift
/// var configuration = OSSClientConfiguration(region: "cn-hangzhou")
/// configuration.observe(OSSObservability())   // the process-wide MetricsSystem and InstrumentationSystem
/// ```
///
/// Each client may have its own backends (``metricsFactory``, ``tracer``); without them it uses the process-wide
/// ones, as bootstrapped by the app (nothing is recorded while the app bootstraps neither).
public struct OSSObservability: Sendable {
    /// Where metrics go; `nil` uses `MetricsSystem.factory` at each use.
    public var metricsFactory: (any MetricsFactory)?
    /// Where spans go; `nil` uses `InstrumentationSystem.tracer` at each use.
    public var tracer: (any Tracer)?
    /// Whether metrics are recorded. Default true.
    public var recordsMetrics: Bool
    /// Whether spans are made. Default true.
    public var recordsSpans: Bool
    /// Whether each attempt (one HTTP exchange) gets a span of its own, a child of its operation's. Default false:
    /// the operation's span carries the retry count, and an event for each attempt that failed or stalled; most
    /// operations make one attempt, and its span would repeat the operation's at the cost of a second span per
    /// request.
    public var recordsAttemptSpans: Bool
    /// Whether spans carry the object key (`oss.key`). Default false: keys are personal data in many apps.
    public var recordsObjectKeys: Bool
    /// Whether metrics carry a `bucket` dimension. Default false: an app with a bucket per tenant would make one
    /// time series per bucket (spans always carry the bucket).
    public var bucketDimension: Bool

    public init(
        metricsFactory: (any MetricsFactory)? = nil, tracer: (any Tracer)? = nil, recordsMetrics: Bool = true,
        recordsSpans: Bool = true, recordsAttemptSpans: Bool = false, recordsObjectKeys: Bool = false,
        bucketDimension: Bool = false
    ) {
        self.metricsFactory = metricsFactory
        self.tracer = tracer
        self.recordsMetrics = recordsMetrics
        self.recordsSpans = recordsSpans
        self.recordsAttemptSpans = recordsAttemptSpans
        self.recordsObjectKeys = recordsObjectKeys
        self.bucketDimension = bucketDimension
    }
}

extension OSSClientConfiguration {
    /// Installs the metrics and tracing middleware: per operation (outermost, around the retries), per attempt
    /// (first below throttling, so the time an attempt waits for the client's pause is not counted) and per
    /// resumable transfer.
    public mutating func observe(_ observability: OSSObservability) {
        guard observability.recordsSpans || observability.recordsMetrics else { return }
        let middleware = OSSObservationMiddleware(observability)
        operationMiddleware.insert(middleware.operation, at: 0)
        attemptMiddleware.insert(middleware.attempt, at: 0)
        transferMiddleware.insert(middleware.transfer, at: 0)
        // The client's spans cover each request: AsyncHTTPClient makes none of its own.
        if observability.recordsSpans { transportMakesSpans = false }
    }
}

/// What the metrics and spans say about an outcome.
enum OSSOutcome {
    /// `2xx` ... `5xx`, or `error` when no HTTP answer came (network failure, cancellation, a local error).
    static func statusClass(_ status: Int?) -> String {
        switch status {
        case .some(200..<300): "2xx"
        case .some(300..<400): "3xx"
        case .some(400..<500): "4xx"
        case .some(500..<600): "5xx"
        default: "error"
        }
    }

    /// The HTTP status an error carries, if the server answered.
    static func status(of error: any Error) -> Int? {
        (error as? OSSServerError)?.statusCode
    }

    /// The OSS error code (`NoSuchKey`) or the client's (`NetworkError`).
    static func code(of error: any Error) -> String {
        if let server = error as? OSSServerError { return server.code.isEmpty ? "HTTP\(server.statusCode)" : server.code }
        if let client = error as? OSSClientError { return client.code.rawValue }
        return "Unknown"
    }
}
