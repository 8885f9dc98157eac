import Foundation

/// How many inputs the fuzz suites try: the in-test default times `OSS_RELIABILITY_SCALE` (the long runs in
/// `scripts/reliability.sh` set it to 50).
enum ReliabilityScale {
    static var factor: Int {
        let text = ProcessInfo.processInfo.environment["OSS_RELIABILITY_SCALE"] ?? "1"
        guard let value = Int(text), value >= 1 else { return 1 }
        return min(value, 10_000)
    }

    static func count(_ base: Int) -> Int { base * factor }

    /// Inputs sent over real HTTP grow at most tenfold (each one is a TCP connection to the in-process server).
    static func httpCount(_ base: Int) -> Int { base * min(factor, 10) }

    /// The seed of a suite: `OSS_RELIABILITY_SEED` overrides the fixed default.
    static func seed(_ fallback: UInt64) -> UInt64 {
        guard let text = ProcessInfo.processInfo.environment["OSS_RELIABILITY_SEED"], let value = UInt64(text) else {
            return fallback
        }
        return value ^ fallback
    }

    /// Transfer runs per direction for the seeded-fault suite (`OSS_RELIABILITY_TRANSFERS`, default 5).
    static var transfers: Int {
        let text = ProcessInfo.processInfo.environment["OSS_RELIABILITY_TRANSFERS"] ?? "5"
        guard let value = Int(text), value >= 1 else { return 5 }
        return min(value, 1000)
    }
}

/// One machine-readable figure line (`RELIABILITY suite=... key=value ...`), collected by scripts/reliability.sh.
func reportFigure(_ suite: String, _ fields: KeyValuePairs<String, Any>) {
    let rendered = fields.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    print("RELIABILITY suite=\(suite) \(rendered)")
}
