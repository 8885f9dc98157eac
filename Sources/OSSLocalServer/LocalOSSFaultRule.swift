/// A fault the local server injects into matching requests.
///
/// A rule matches requests of one ``operation`` (or of any operation when it is `nil`); its ``trigger``
/// decides which matching requests it fires on, and ``times`` limits how often it fires in total.
///
/// ## Textual syntax
/// Used by `--fault` and `POST /-/faults`: colon-separated fields, the first one the operation.
/// ```
/// OPERATION[:TRIGGER][:ACTION][:times=N]
/// OPERATION  an OSS operation name (UploadPart, GetObject, PutObject, ...; case-insensitive) or * / any
/// TRIGGER    nth=N            the Nth matching request (1-based), once
///            every=N          every Nth matching request (N, 2N, ...)
///            random=R[:seed=S] each matching request with probability R (0...1), seeded (default seed 0)
///            always           every matching request (the default when no trigger is given)
/// ACTION     status=CODE[:code=ErrorCode]  reply with this HTTP status (300-599) and an OSS error
///                             (default code per status: 500 InternalError, 503 ServiceUnavailable, ...)
///            drop=N           close the connection after N body bytes: request body bytes for requests
///                             that carry a body (uploads), response body bytes otherwise (downloads)
///            stall=N          stop moving bytes after N body bytes (request body for uploads, response body
///                             otherwise) and hold the connection open for up to 10 minutes, then close it: a
///                             stalled link or proxy (the peer sees no error, only silence)
///            blackhole        handle the request fully, then hold the connection open without replying (up to
///                             10 minutes): a peer that swallows the request and never answers
///            dropreply        handle the request fully (an upload is stored, a multipart upload completed), then
///                             close the connection without replying: the answer is lost, not the request
///            delay=MS         wait MS milliseconds (at most one hour), then handle the request normally
///            skew=SECONDS     handle the request with the server clock shifted by SECONDS (may be negative)
///            throttle=MS[:code=ErrorCode]  throttle for MS milliseconds (1...600000): the request and every request
///                             the rule matches until MS have passed are answered 503 (default code
///                             TotalQpsLimitExceeded) with `x-oss-qos-delay-time: <ms left>` and `Retry-After:
///                             <seconds left, rounded up>`, as OSS does when a bucket is over its limits; requests
///                             answered inside the window do not advance the rule's trigger
///            corrupt=N        flip one bit of body byte N (0-based) in transit: of the request body for requests
///                             that carry one (the server then stores and hashes the damaged bytes), of the
///                             response body otherwise (the client receives them); a shorter body is untouched
/// times=N    fire at most N times (default: unlimited; nth fires once anyway)
/// ```
/// Examples: `UploadPart:nth=3:status=503`, `GetObject:always:drop=1000:times=2`, `*:random=0.05:seed=7:throttle=200`,
/// `*:random=0.1:seed=42:status=500:code=InternalError`, `PutObject:delay=1500`, `any:skew=3600:times=1`.
public struct LocalOSSFaultRule: Sendable, Codable, Hashable, CustomStringConvertible {
    /// Which matching requests a rule fires on.
    public enum Trigger: Sendable, Codable, Hashable {
        /// The Nth matching request (1-based).
        case nth(Int)
        /// Every Nth matching request.
        case everyNth(Int)
        /// Each matching request with probability `rate`, from a generator seeded with `seed`.
        case random(rate: Double, seed: UInt64)
        /// Every matching request.
        case always
    }

    /// What happens to a request the rule fires on.
    public enum Action: Sendable, Codable, Hashable {
        /// Reply with this HTTP status and an OSS `<Error>` whose code is `code` (or a default for the status).
        case status(Int, code: String?)
        /// Close the connection after this many body bytes (request body for uploads, response body otherwise).
        case dropConnection(afterBytes: Int)
        /// Handle the request fully, then close the connection without sending the response.
        case dropReply
        /// Stop moving bytes after this many body bytes and hold the connection open (a stalled link).
        case stall(afterBytes: Int)
        /// Handle the request fully, then hold the connection open without replying (a black hole).
        case blackHole
        /// Wait, then handle the request normally.
        case delay(milliseconds: Int)
        /// Handle the request with the server clock shifted by this many seconds.
        case clockSkew(seconds: Int)
        /// Flip one bit of the body byte at this offset in transit (request body for uploads, response body
        /// otherwise): bit rot on the wire, for exercising end-to-end checksums.
        case corrupt(atByte: Int)
        /// Throttle: answer 503 `code` (default `TotalQpsLimitExceeded`) with `x-oss-qos-delay-time` and
        /// `Retry-After`, to this request and to every request the rule matches in the next `milliseconds`.
        case throttle(milliseconds: Int, code: String?)
    }

    /// The operation the rule applies to; `nil` means every operation.
    public var operation: LocalOSSOperation?
    /// Which matching requests the rule fires on.
    public var trigger: Trigger
    /// What happens to a request the rule fires on.
    public var action: Action
    /// The most times the rule fires; `nil` means no limit.
    public var times: Int?

    /// Creates a rule; by default it fires on every matching request, without limit.
    public init(operation: LocalOSSOperation?, trigger: Trigger = .always, action: Action, times: Int? = nil) {
        self.operation = operation
        self.trigger = trigger
        self.action = action
        self.times = times
    }

    /// The rule in the textual syntax (parsable by ``init(parsing:)``).
    public var description: String {
        var fields: [String] = [operation?.rawValue ?? "*"]
        switch trigger {
        case .nth(let n): fields.append("nth=\(n)")
        case .everyNth(let n): fields.append("every=\(n)")
        case .random(let rate, let seed): fields.append("random=\(rate)"); fields.append("seed=\(seed)")
        case .always: fields.append("always")
        }
        switch action {
        case .status(let status, let code):
            fields.append("status=\(status)")
            if let code { fields.append("code=\(code)") }
        case .dropConnection(let bytes): fields.append("drop=\(bytes)")
        case .dropReply: fields.append("dropreply")
        case .stall(let bytes): fields.append("stall=\(bytes)")
        case .blackHole: fields.append("blackhole")
        case .delay(let ms): fields.append("delay=\(ms)")
        case .clockSkew(let seconds): fields.append("skew=\(seconds)")
        case .corrupt(let offset): fields.append("corrupt=\(offset)")
        case .throttle(let ms, let code):
            fields.append("throttle=\(ms)")
            if let code { fields.append("code=\(code)") }
        }
        if let times { fields.append("times=\(times)") }
        return fields.joined(separator: ":")
    }
}

/// A fault rule that could not be parsed.
public struct LocalOSSFaultRuleError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the rule.
    public var message: String
    /// Creates an error with a message.
    public init(_ message: String) { self.message = message }
    /// `invalid fault rule: <message>`.
    public var description: String { "invalid fault rule: \(message)" }
}

extension LocalOSSFaultRule {
    /// Parses the textual syntax described on ``LocalOSSFaultRule``, e.g. `UploadPart:nth=3:status=503`.
    public init(parsing text: String) throws(LocalOSSFaultRuleError) {
        let fields = text.trimmingWhitespace().split(separator: ":", omittingEmptySubsequences: false).map {
            String($0).trimmingWhitespace()
        }
        guard let first = fields.first, !first.isEmpty else { throw LocalOSSFaultRuleError("empty rule") }
        var operation: LocalOSSOperation?
        if first != "*" && first.lowercased() != "any" {
            guard let op = LocalOSSOperation(name: first) else {
                throw LocalOSSFaultRuleError("unknown operation '\(first)'")
            }
            operation = op
        }
        var trigger: Trigger?
        var action: Action?
        var times: Int?
        var randomRate: Double?
        var seed: UInt64?
        var status: Int?
        var throttle: Int?
        var code: String?
        func setTrigger(_ t: Trigger) throws(LocalOSSFaultRuleError) {
            guard trigger == nil && randomRate == nil else { throw LocalOSSFaultRuleError("more than one trigger") }
            trigger = t
        }
        func setAction(_ a: Action) throws(LocalOSSFaultRuleError) {
            guard action == nil && status == nil && throttle == nil else {
                throw LocalOSSFaultRuleError("more than one action")
            }
            action = a
        }
        func int(_ name: String, _ value: String, min: Int) throws(LocalOSSFaultRuleError) -> Int {
            guard let n = Int(value), n >= min else {
                throw LocalOSSFaultRuleError("\(name) needs an integer >= \(min), not '\(value)'")
            }
            return n
        }
        for field in fields.dropFirst() {
            let parts = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).lowercased()
            let value = parts.count > 1 ? String(parts[1]) : ""
            switch name {
            case "always":
                try setTrigger(.always)
            case "nth":
                try setTrigger(.nth(try int(name, value, min: 1)))
            case "every", "everynth":
                try setTrigger(.everyNth(try int(name, value, min: 1)))
            case "random", "rate":
                guard trigger == nil, randomRate == nil else { throw LocalOSSFaultRuleError("more than one trigger") }
                guard let rate = Double(value), rate >= 0, rate <= 1 else {
                    throw LocalOSSFaultRuleError("random needs a rate between 0 and 1, not '\(value)'")
                }
                randomRate = rate
            case "seed":
                guard let s = UInt64(value) else { throw LocalOSSFaultRuleError("seed needs an unsigned integer") }
                seed = s
            case "throttle":
                guard action == nil, status == nil, throttle == nil else {
                    throw LocalOSSFaultRuleError("more than one action")
                }
                let ms = try int(name, value, min: 1)
                guard ms <= 600_000 else { throw LocalOSSFaultRuleError("throttle must be 1...600000 ms") }
                throttle = ms
            case "status":
                guard action == nil, status == nil, throttle == nil else {
                    throw LocalOSSFaultRuleError("more than one action")
                }
                let s = try int(name, value, min: 300)
                guard s <= 599 else { throw LocalOSSFaultRuleError("status must be 300...599") }
                status = s
            case "code":
                guard !value.isEmpty else { throw LocalOSSFaultRuleError("code needs a value") }
                code = value
            case "drop":
                try setAction(.dropConnection(afterBytes: try int(name, value, min: 0)))
            case "dropreply":
                guard value.isEmpty else { throw LocalOSSFaultRuleError("dropreply takes no value") }
                try setAction(.dropReply)
            case "stall":
                try setAction(.stall(afterBytes: try int(name, value, min: 0)))
            case "blackhole":
                guard value.isEmpty else { throw LocalOSSFaultRuleError("blackhole takes no value") }
                try setAction(.blackHole)
            case "delay":
                try setAction(.delay(milliseconds: try int(name, value, min: 0)))
            case "skew", "clockskew":
                guard let s = Int(value) else { throw LocalOSSFaultRuleError("skew needs an integer number of seconds") }
                try setAction(.clockSkew(seconds: s))
            case "corrupt":
                try setAction(.corrupt(atByte: try int(name, value, min: 0)))
            case "times":
                times = try int(name, value, min: 1)
            default:
                throw LocalOSSFaultRuleError("unknown field '\(field)'")
            }
        }
        if let randomRate { trigger = .random(rate: randomRate, seed: seed ?? 0) }
        else if seed != nil { throw LocalOSSFaultRuleError("seed without random") }
        if let status { action = .status(status, code: code) }
        else if let throttle { action = .throttle(milliseconds: throttle, code: code) }
        else if code != nil { throw LocalOSSFaultRuleError("code without status or throttle") }
        guard let action else {
            throw LocalOSSFaultRuleError("no action (status=, throttle=, drop=, stall=, blackhole, dropreply, delay=, skew= or corrupt=)")
        }
        self.init(operation: operation, trigger: trigger ?? .always, action: action, times: times)
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
