import Foundation
import OSSTestSupport
import Testing

/// What one fuzz input did.
enum FuzzOutcome {
    /// Parsed or decoded successfully.
    case accepted
    /// Refused with the expected typed error (or `nil`, for optional-returning parsers).
    case rejected
}

/// Runs `count` seeded inputs through `body`, bounding the time of each one (a hang guard, not a speed test),
/// and prints a figure line with the counts.
///
/// A crash (trap) aborts the test process, so surviving the loop is the "no crash" check; `body` records an
/// issue for an untyped error or a broken invariant.
func runFuzz(
    _ target: String, seed: UInt64, count: Int, perInputLimit: Duration = .seconds(10),
    _ body: (inout SplitMix64, Int) throws -> FuzzOutcome
) rethrows {
    var rng = SplitMix64(seed: seed)
    var accepted = 0
    var rejected = 0
    var slowest: Duration = .zero
    let clock = ContinuousClock()
    let started = clock.now
    for index in 0..<count {
        let begin = clock.now
        switch try body(&rng, index) {
        case .accepted: accepted += 1
        case .rejected: rejected += 1
        }
        let took = clock.now - begin
        if took > slowest { slowest = took }
        if took > perInputLimit {
            Issue.record("\(target): input \(index) (seed \(seed)) took \(took), over the \(perInputLimit) bound")
        }
    }
    let total = clock.now - started
    #expect(accepted + rejected == count)
    reportFigure(
        "fuzz",
        [
            "target": target, "seed": seed, "inputs": count, "accepted": accepted, "rejected": rejected,
            "slowest_ms": slowest.milliseconds, "total_s": total.milliseconds / 1000,
        ])
}

extension Duration {
    var milliseconds: Int64 {
        let parts = components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }
}

/// When `OSS_FUZZ_LAST_INPUT` names a file, every input is written there before it is tried, so the input that
/// crashed the process can be recovered and turned into a regression test.
func saveLastFuzzInput(_ input: [UInt8]) {
    guard let path = lastInputPath else { return }
    FileManager.default.createFile(atPath: path, contents: Data(input))
}

private let lastInputPath = ProcessInfo.processInfo.environment["OSS_FUZZ_LAST_INPUT"]

/// Byte-level mutations of valid documents: truncation, bit flips, insertions of hostile tokens, splices.
enum Mutator {
    /// Tokens that have broken parsers before: entities, DTDs, CDATA, huge and negative numbers, bad escapes.
    static let tokens: [String] = [
        "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>", "&e;", "&amp;", "&lt;", "&#0;", "&#x0;",
        "&#x110000;", "&#xD800;", "&#99999999999;", "&unknown;", "&", "<![CDATA[", "]]>", "<!-- -->", "<?pi x?>",
        "99999999999999999999999999", "18446744073709551616", "18446744073709551615", "9223372036854775808",
        "-1", "-9223372036854775808", "0x10", "1e9", " 1", "1 ", "+1", "NaN", "", "%", "%G1", "%ff", "%FF%FE",
        "%00", "%2F..%2F..", "%C0%AF", "%E2%82", "../../etc/passwd", "\u{0}", "\r\n", "\u{FEFF}", "\u{FFFF}",
        "true", "TRUE", "maybe", "<a>", "</a>", "<Part>", "</Part>", "<Key>", "</Key>", "<EncodingType>url</EncodingType>",
        "xmlns:x=\"y\"", "<x:y/>", "=\"", "'", "\"", "\u{1F600}", String(repeating: "A", count: 300),
    ]

    static func deepNesting(_ depth: Int) -> String {
        String(repeating: "<d>", count: depth) + String(repeating: "</d>", count: depth)
    }

    /// One gentle mutation: the text of one element replaced by a hostile token (the document stays well-formed
    /// more often, so the typed decoders behind the parser get exercised).
    static func replaceText(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<8 {
            let position = rng.below(bytes.count + 1)
            guard let open = bytes[position...].firstIndex(of: 0x3E), let close = bytes[(open + 1)...].firstIndex(of: 0x3C)
            else { continue }
            var token = rng.element(tokens)
            token = token.replacingOccurrences(of: "&", with: rng.chance(1, in: 2) ? "&amp;" : "&").replacingOccurrences(of: "<", with: "&lt;")
            bytes.replaceSubrange((open + 1)..<close, with: Array(token.utf8))
            return bytes
        }
        return bytes
    }

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64, extraTokens: [String] = []) -> [UInt8] {
        var bytes = input
        let rounds = 1 + rng.below(4)
        for _ in 0..<rounds {
            let position = bytes.isEmpty ? 0 : rng.below(bytes.count + 1)
            switch rng.below(10) {
            case 0:
                bytes = Array(bytes.prefix(position))
            case 1, 2:
                if !bytes.isEmpty {
                    let at = rng.below(bytes.count)
                    bytes[at] ^= UInt8(1) << UInt8(rng.below(8))
                }
            case 3:
                if !bytes.isEmpty { bytes[rng.below(bytes.count)] = UInt8(truncatingIfNeeded: rng.next()) }
            case 4, 5:
                let token = rng.chance(1, in: 4) && !extraTokens.isEmpty ? rng.element(extraTokens) : rng.element(tokens)
                bytes.insert(contentsOf: Array(token.utf8), at: position)
            case 6:
                // Replace the text of an element (between '>' and '<') with a hostile token.
                if let open = bytes[position...].firstIndex(of: 0x3E), let close = bytes[(open + 1)...].firstIndex(of: 0x3C) {
                    let token = rng.element(tokens + extraTokens)
                    bytes.replaceSubrange((open + 1)..<close, with: Array(token.utf8))
                }
            case 7:
                if !bytes.isEmpty {
                    let end = min(bytes.count, position + 1 + rng.below(64))
                    bytes.removeSubrange(min(position, end)..<end)
                }
            case 8:
                if !bytes.isEmpty {
                    let start = rng.below(bytes.count)
                    let end = min(bytes.count, start + 1 + rng.below(128))
                    bytes.insert(contentsOf: Array(bytes[start..<end]), at: position)
                }
            default:
                if rng.chance(1, in: 8) {
                    bytes.insert(contentsOf: Array(deepNesting(1 + rng.below(200)).utf8), at: position)
                } else {
                    bytes.insert(contentsOf: rng.bytes(1 + rng.below(16)), at: position)
                }
            }
        }
        return bytes
    }
}
