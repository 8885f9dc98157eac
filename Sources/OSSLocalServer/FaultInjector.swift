/// What the fault rules decided for one request.
struct FaultOutcome: Sendable {
    var status: (Int, String?)?
    var dropAfter: Int64?
    /// Hold the connection open, silent, before the drop at `dropAfter` (a stall rather than a reset).
    var holdBeforeDrop = false
    /// Handle the request, then close the connection instead of replying.
    var dropReply = false
    /// Handle the request, then hold the connection open without replying.
    var blackHole = false
    var corruptAt: Int64?
    /// Answer 503 with `x-oss-qos-delay-time` / `Retry-After` of this many milliseconds, with this code.
    var throttle: (milliseconds: Int, code: String?)?
    var delayMilliseconds: Int = 0
    var clockSkewSeconds: Int = 0
    var fired = 0
}

/// Fault rules with their matching state, and the per-operation counters.
actor ServerState {
    private struct ActiveRule {
        var rule: LocalOSSFaultRule
        var matched = 0
        var fired = 0
        var rng: UInt64
        /// The end of the throttle window a `throttle` rule opened.
        var throttledUntil: ContinuousClock.Instant?
    }

    private var rules: [ActiveRule] = []
    private var stats = LocalOSSServerStats()

    init(faults: [LocalOSSFaultRule]) {
        rules = faults.map(Self.activate)
    }

    private static func activate(_ rule: LocalOSSFaultRule) -> ActiveRule {
        var seed: UInt64 = 0
        if case .random(_, let s) = rule.trigger { seed = s }
        return ActiveRule(rule: rule, rng: seed)
    }

    func add(_ rule: LocalOSSFaultRule) {
        rules.append(Self.activate(rule))
    }

    func clear() { rules.removeAll() }

    func activeRules() -> [LocalOSSFaultRule] { rules.map(\.rule) }

    func snapshot() -> LocalOSSServerStats { stats }

    /// Counts a response paced by `x-oss-traffic-limit`: its bytes, the time the limit required and the time taken.
    func recordTrafficLimited(_ shaper: TrafficShaper, request: Bool = false) {
        if request { stats.trafficLimitedRequests += 1 } else { stats.trafficLimitedResponses += 1 }
        stats.trafficLimitedBytes += shaper.bytes
        stats.trafficLimitRequiredMicroseconds += shaper.requiredNanoseconds / 1000
        stats.trafficLimitElapsedMicroseconds += shaper.elapsedNanoseconds / 1000
    }

    /// Zeroes the counters, once the requests in flight have been counted (at most `patience`): a request a
    /// client gave up on may still be counted by the server a moment later, and must not land in the fresh
    /// counters.
    func reset(patience: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + patience
        while inFlight > 0, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        stats = LocalOSSServerStats()
    }

    /// Requests that began (``begin(_:)``) and were not counted yet (``finish(_:requestBytes:responseBytes:)``).
    private var inFlight = 0

    /// Connections being served: a request that arrived on a connection is counted before the connection ends.
    private var openConnections = 0

    func connectionOpened() { openConnections += 1 }

    func connectionClosed() { openConnections = max(0, openConnections - 1) }

    /// Waits (at most `patience`) until no connection is open; returns whether that happened. A request a client
    /// wrote and then gave up on (it closed the connection) may still be read and served by the server: once every
    /// connection has ended, every such request has been counted.
    func waitForConnectionsToEnd(patience: Duration) async -> Bool {
        let deadline = ContinuousClock.now + patience
        while openConnections > 0 {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// Counts a request of `operation` and evaluates the fault rules for it.
    func begin(_ operation: LocalOSSOperation) -> FaultOutcome {
        stats[operation].requests += 1
        inFlight += 1
        var outcome = FaultOutcome()
        for index in rules.indices {
            var active = rules[index]
            defer { rules[index] = active }
            if let op = active.rule.operation, op != operation { continue }
            if let left = Self.throttleLeft(active) {
                // Inside a throttle window: refused without advancing the trigger.
                if outcome.throttle == nil, case .throttle(_, let code) = active.rule.action {
                    outcome.throttle = (left, code)
                }
                continue
            }
            if let times = active.rule.times, active.fired >= times { continue }
            active.matched += 1
            let fires: Bool
            switch active.rule.trigger {
            case .nth(let n): fires = active.matched == n
            case .everyNth(let n): fires = n > 0 && active.matched % n == 0
            case .always: fires = true
            case .random(let rate, _):
                let draw = Self.splitMix(&active.rng)
                fires = Double(draw >> 11) / Double(1 << 53) < rate
            }
            guard fires else { continue }
            active.fired += 1
            outcome.fired += 1
            switch active.rule.action {
            case .status(let status, let code):
                if outcome.status == nil { outcome.status = (status, code) }
            case .dropConnection(let bytes):
                if outcome.dropAfter == nil { outcome.dropAfter = Int64(bytes) }
            case .dropReply:
                outcome.dropReply = true
            case .stall(let bytes):
                if outcome.dropAfter == nil {
                    outcome.dropAfter = Int64(bytes)
                    outcome.holdBeforeDrop = true
                }
            case .blackHole:
                outcome.blackHole = true
            case .delay(let ms):
                outcome.delayMilliseconds = min(outcome.delayMilliseconds + max(0, ms), 3_600_000)
            case .corrupt(let offset):
                if outcome.corruptAt == nil { outcome.corruptAt = Int64(offset) }
            case .clockSkew(let seconds):
                outcome.clockSkewSeconds = max(-315_360_000, min(outcome.clockSkewSeconds + seconds, 315_360_000))
            case .throttle(let ms, let code):
                let ms = max(1, min(ms, 600_000))
                active.throttledUntil = ContinuousClock.now + .milliseconds(ms)
                stats.throttleWindows += 1
                if outcome.throttle == nil { outcome.throttle = (ms, code) }
            }
        }
        stats.faultsInjected += Int64(outcome.fired)
        if outcome.throttle != nil { stats.throttledRequests += 1 }
        return outcome
    }

    /// The milliseconds left (at least 1) in the throttle window the rule opened, or `nil` when none is open.
    private static func throttleLeft(_ active: ActiveRule) -> Int? {
        guard let until = active.throttledUntil else { return nil }
        let left = until - ContinuousClock.now
        guard left > .zero else { return nil }
        let ms = left.components.seconds * 1000 + (left.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int(max(1, ms))
    }

    /// Counts response body bytes written to a connection.
    func written(_ operation: LocalOSSOperation, bytes: Int64) {
        stats[operation].responseBodyBytesWritten += bytes
    }

    /// Adds the byte counts of a finished (or dropped) request.
    func finish(_ operation: LocalOSSOperation, requestBytes: Int64, responseBytes: Int64) {
        inFlight = max(0, inFlight - 1)
        stats[operation].requestBodyBytes += requestBytes
        stats[operation].responseBodyBytes += responseBytes
    }

    /// Holds a connection open and silent for a stall or black-hole fault: up to ten minutes, or until the server
    /// shuts down.
    static func hold() async {
        try? await Task.sleep(for: .seconds(600))
    }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
