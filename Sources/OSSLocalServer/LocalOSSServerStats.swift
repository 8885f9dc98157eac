/// Request counters of a ``LocalOSSServer``, per operation, since start or the last reset.
///
/// Encoded as JSON by the admin endpoint `GET /-/stats`:
/// `{"operations":{"UploadPart":{"requests":3,"requestBodyBytes":307200,"responseBodyBytes":0}},"faultsInjected":1}`.
public struct LocalOSSServerStats: Sendable, Codable, Hashable {
    /// The counters of one operation.
    public struct Counters: Sendable, Codable, Hashable {
        /// Requests received (including rejected and faulted ones).
        public var requests: Int64
        /// Request body bytes received.
        public var requestBodyBytes: Int64
        /// Response body bytes of the replies, counted when a reply starts (the planned body, or up to a fault's
        /// cut), so a client that has read a reply always finds it counted.
        public var responseBodyBytes: Int64
        /// Response body bytes actually written to the connections, counted as they go (a reply cut short because
        /// the client went away counts only what was written). What a killed download really cost.
        public var responseBodyBytesWritten: Int64

        /// Creates counters (all zero by default).
        public init(
            requests: Int64 = 0, requestBodyBytes: Int64 = 0, responseBodyBytes: Int64 = 0,
            responseBodyBytesWritten: Int64 = 0
        ) {
            self.requests = requests
            self.requestBodyBytes = requestBodyBytes
            self.responseBodyBytes = responseBodyBytes
            self.responseBodyBytesWritten = responseBodyBytesWritten
        }

        private enum CodingKeys: String, CodingKey {
            case requests, requestBodyBytes, responseBodyBytes, responseBodyBytesWritten
        }

        /// Decodes counters; `responseBodyBytesWritten` is zero when a server did not send it.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            requests = try container.decode(Int64.self, forKey: .requests)
            requestBodyBytes = try container.decode(Int64.self, forKey: .requestBodyBytes)
            responseBodyBytes = try container.decode(Int64.self, forKey: .responseBodyBytes)
            responseBodyBytesWritten = try container.decodeIfPresent(Int64.self, forKey: .responseBodyBytesWritten) ?? 0
        }
    }

    private enum CodingKeys: String, CodingKey {
        case operations, faultsInjected, trafficLimitedResponses, trafficLimitedBytes, trafficLimitRequiredMicroseconds
        case trafficLimitElapsedMicroseconds, trafficLimitedRequests, throttledRequests, throttleWindows
    }

    /// Decodes a snapshot; counters a server did not send are zero.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        operations = try container.decode([String: Counters].self, forKey: .operations)
        faultsInjected = try container.decode(Int64.self, forKey: .faultsInjected)
        trafficLimitedResponses = try container.decodeIfPresent(Int64.self, forKey: .trafficLimitedResponses) ?? 0
        trafficLimitedRequests = try container.decodeIfPresent(Int64.self, forKey: .trafficLimitedRequests) ?? 0
        trafficLimitedBytes = try container.decodeIfPresent(Int64.self, forKey: .trafficLimitedBytes) ?? 0
        trafficLimitRequiredMicroseconds =
            try container.decodeIfPresent(Int64.self, forKey: .trafficLimitRequiredMicroseconds) ?? 0
        trafficLimitElapsedMicroseconds =
            try container.decodeIfPresent(Int64.self, forKey: .trafficLimitElapsedMicroseconds) ?? 0
        throttledRequests = try container.decodeIfPresent(Int64.self, forKey: .throttledRequests) ?? 0
        throttleWindows = try container.decodeIfPresent(Int64.self, forKey: .throttleWindows) ?? 0
    }

    /// Counters keyed by operation name (``LocalOSSOperation/rawValue``); operations never seen are absent.
    public var operations: [String: Counters]
    /// How many times a fault rule fired.
    public var faultsInjected: Int64
    /// Responses whose body was paced by `x-oss-traffic-limit`.
    public var trafficLimitedResponses: Int64 = 0
    /// Requests (uploads) whose body the server read no faster than their `x-oss-traffic-limit`.
    public var trafficLimitedRequests: Int64 = 0
    /// The body bytes of the paced responses and requests.
    public var trafficLimitedBytes: Int64 = 0
    /// The time their limits required (bytes × 8 / limit), summed, in microseconds.
    public var trafficLimitRequiredMicroseconds: Int64 = 0
    /// The time their bodies actually took, summed, in microseconds: at least the required time when paced.
    public var trafficLimitElapsedMicroseconds: Int64 = 0
    /// Requests answered 503 by a `throttle` fault (the one that opened a window and those inside it).
    public var throttledRequests: Int64 = 0
    /// Throttle windows opened by `throttle` faults.
    public var throttleWindows: Int64 = 0

    /// Creates a snapshot (empty by default).
    public init(operations: [String: Counters] = [:], faultsInjected: Int64 = 0) {
        self.operations = operations
        self.faultsInjected = faultsInjected
    }

    /// The counters of `operation` (all zero when it was never seen).
    public subscript(_ operation: LocalOSSOperation) -> Counters {
        get { operations[operation.rawValue] ?? Counters() }
        set { operations[operation.rawValue] = newValue }
    }

    /// The sum over all operations.
    public var total: Counters {
        var sum = Counters()
        for counters in operations.values {
            sum.requests += counters.requests
            sum.requestBodyBytes += counters.requestBodyBytes
            sum.responseBodyBytes += counters.responseBodyBytes
            sum.responseBodyBytesWritten += counters.responseBodyBytesWritten
        }
        return sum
    }
}
