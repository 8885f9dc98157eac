import Foundation

/// SplitMix64: a tiny, fast, seedable generator, so every fuzz run and fault plan is reproducible from its seed.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (`bound` > 0).
    mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with probability `numerator`/`denominator`.
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        below(denominator) < numerator
    }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    mutating func element<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}

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
