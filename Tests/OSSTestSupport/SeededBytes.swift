/// SplitMix64: a tiny, fast, seedable generator, so every fuzz run, fault plan and random round is reproducible
/// from its seed.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (`bound` > 0).
    package mutating func below(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }

    /// True with probability `numerator`/`denominator`.
    package mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        below(denominator) < numerator
    }

    package mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    package mutating func element<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}

/// `count` deterministic pseudo-random bytes: the same `seed` gives the same bytes in every test target.
package func patternBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    var out = [UInt8]()
    out.reserveCapacity(count)
    for _ in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        out.append(UInt8(truncatingIfNeeded: state >> 33))
    }
    return out
}
