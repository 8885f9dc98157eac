import AliyunOSS
import Foundation
import OSSCRC64
@testable import OSSSigning
import OSSTestSupport
import Testing

/// Seeded fuzzing of the small text parsers shared by the SDK and the server.
@Suite("Fuzz: percent-encoding, dates, CRC64 and Content-Range parsers")
struct ParserFuzzTests {
    static let alphabet: [UInt8] = Array("%+=&/?#-_.~ aZ09fF:,;GMT\u{7F}".utf8) + [0x00, 0x0D, 0x0A, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xFF]

    static func randomText(_ rng: inout SplitMix64, maxLength: Int = 48) -> [UInt8] {
        let length = rng.below(maxLength + 1)
        return (0..<length).map { _ in rng.chance(3, in: 4) ? rng.element(alphabet) : UInt8(truncatingIfNeeded: rng.next()) }
    }

    @Test("percent decode round-trips encode and rejects malformed escapes without trapping")
    func percentDecoding() {
        runFuzz("percent-decode", seed: ReliabilityScale.seed(0x5043_5400), count: ReliabilityScale.count(40_000)) { rng, _ in
            let raw = Self.randomText(&rng)
            let text = String(decoding: raw, as: UTF8.self)
            // Encoding any string and decoding it gives it back.
            let encoded = OSSPercentEncoding.encode(text, keepSlash: rng.chance(1, in: 2))
            #expect(OSSPercentEncoding.decode(encoded) == text)
            #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
            guard let decoded = OSSPercentEncoding.decode(text, plusAsSpace: rng.chance(1, in: 2)) else { return .rejected }
            #expect(decoded.utf8.count <= text.utf8.count)
            return .accepted
        }
    }

    @Test("parseQuery never traps and agrees with encodeQuery")
    func queryParsing() {
        runFuzz("parse-query", seed: ReliabilityScale.seed(0x5155_4500), count: ReliabilityScale.count(40_000)) { rng, _ in
            let text = String(decoding: Self.randomText(&rng, maxLength: 80), as: UTF8.self)
            guard let parsed = OSSPercentEncoding.parseQuery(text) else { return .rejected }
            // What we parsed survives a round trip through our own encoder (a parameter with an empty name,
            // from `=x` or `&=&`, has no encoding and is dropped; nothing reads it).
            var named = parsed
            named[""] = nil
            #expect(OSSPercentEncoding.parseQuery(OSSPercentEncoding.encodeQuery(named)) == named)
            return .accepted
        }
    }

    @Test("date parsers accept only real dates and round-trip what they format")
    func dateParsing() {
        let seeds = [
            "Mon, 15 Jan 2024 08:30:45 GMT", "20240115T083045Z", "2024-01-15T08:30:45.000Z", "2024-02-29T23:59:60Z",
            "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT",
        ].map { Array($0.utf8) }
        runFuzz("date-parsers", seed: ReliabilityScale.seed(0x4441_5400), count: ReliabilityScale.count(40_000)) { rng, _ in
            let input = rng.chance(1, in: 5) ? Self.randomText(&rng, maxLength: 32) : Mutator.mutate(rng.element(seeds), &rng)
            let text = String(decoding: input, as: UTF8.self)
            var accepted = false
            for parsed in [
                OSSDateFormat.parseRFC1123(text), OSSDateFormat.parseISO8601Basic(text), OSSDateFormat.parseISO8601(text),
            ] {
                guard let date = parsed else { continue }
                accepted = true
                let seconds = date.timeIntervalSince1970
                #expect(seconds >= -62_135_596_800 && seconds < 253_402_300_800, "\(text) -> \(seconds)")
                #expect(OSSDateFormat.parseISO8601Basic(OSSDateFormat.iso8601Basic(date)) == date)
                #expect(OSSDateFormat.parseRFC1123(OSSDateFormat.rfc1123(date)) == date)
            }
            return accepted ? .accepted : .rejected
        }
    }

    @Test("the fixed-offset RFC 1123 reader agrees with the field reader on every text it accepts")
    func imfFixdateAgreesWithTheFieldReader() {
        let seeds = [
            "Mon, 15 Jan 2024 08:30:45 GMT", "Thu, 01 Jan 1970 00:00:00 UTC", "Fri, 31 Dec 9999 23:59:59 GMT",
            "Sat, 29 Feb 2025 12:00:00 GMT", "xyz, 15 jan 2024 08:30:45 GMT",
        ].map { Array($0.utf8) }
        runFuzz("imf-fixdate", seed: ReliabilityScale.seed(0x494D_4600), count: ReliabilityScale.count(40_000)) { rng, _ in
            let text = String(decoding: Mutator.mutate(rng.element(seeds), &rng), as: UTF8.self)
            guard let fast = OSSDateFormat.parseIMFFixdate(text) else { return .rejected }
            #expect(OSSDateFormat.parseRFC1123Fields(text) == fast, "\(text)")
            return .accepted
        }
        for seed in ["Mon, 15 Jan 2024 08:30:45 GMT", "Thu, 01 Jan 1970 00:00:00 UTC"] {
            #expect(OSSDateFormat.parseIMFFixdate(seed) != nil && OSSDateFormat.parseIMFFixdate(seed) == OSSDateFormat.parseRFC1123Fields(seed))
        }
        #expect(OSSDateFormat.parseIMFFixdate("Sat, 29 Feb 2025 12:00:00 GMT") == nil, "not a real date")
        #expect(OSSDateFormat.parseIMFFixdate("Mon,  15 Jan 2024 08:30:45 GMT") == nil, "not the fixed form")
        #expect(OSSDateFormat.parseRFC1123("Mon,  15 Jan 2024 08:30:45 GMT") != nil, "the field reader still reads it")
    }

    @Test("CRC64.parseHeaderValue accepts exactly the unsigned decimals that fit")
    func crcHeaderParsing() {
        let seeds = ["0", "18446744073709551615", "18446744073709551616", "11219760133186541106", "00042"].map { Array($0.utf8) }
        runFuzz("crc64-header", seed: ReliabilityScale.seed(0x4352_4300), count: ReliabilityScale.count(40_000)) { rng, _ in
            let input = rng.chance(1, in: 3) ? Self.randomText(&rng, maxLength: 24) : Mutator.mutate(rng.element(seeds), &rng)
            let text = String(decoding: input, as: UTF8.self)
            guard let value = CRC64.parseHeaderValue(text) else {
                let digitsOnly = !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
                #expect(!digitsOnly || UInt64(text) == nil, "refused a valid value \(text)")
                return .rejected
            }
            #expect(UInt64(text) == value)
            return .accepted
        }
    }

    @Test("OSSContentRange parses only ordered, non-negative ranges")
    func contentRangeParsing() {
        let seeds = ["bytes 0-99/1000", "bytes 5-5/*", "bytes 0-9223372036854775807/9223372036854775807"].map { Array($0.utf8) }
        runFuzz("content-range", seed: ReliabilityScale.seed(0x4352_4E00), count: ReliabilityScale.count(40_000)) { rng, _ in
            let input = rng.chance(1, in: 3) ? Self.randomText(&rng, maxLength: 32) : Mutator.mutate(rng.element(seeds), &rng)
            guard let range = OSSContentRange(String(decoding: input, as: UTF8.self)) else { return .rejected }
            #expect(range.start >= 0 && range.end >= range.start)
            if let total = range.total { #expect(range.end < total, "a range ending past the object's size") }
            return .accepted
        }
    }
}
