import OSSCRC64
import OSSTestSupport
import Testing

@Suite("CRC-64/XZ")
struct CRC64Tests {
    // Values produced by the official SDKs (crcmod) in ../shared/reference/vectors.json.
    @Test(arguments: [
        ("", UInt64(0)),
        ("123456789", 11_051_210_869_376_104_954),
        ("hello world", 5_981_764_153_023_615_706),
        ("a", 3_675_645_893_302_102_789),
    ])
    func knownValues(text: String, expected: UInt64) {
        #expect(CRC64.checksum(Array(text.utf8)) == expected)
        #expect(CRC64.checksum(Array(text.utf8)) == expected)
    }

    @Test func checkValueInHex() {
        #expect(CRC64.checksum(Array("123456789".utf8)) == 0x995D_C9BB_DF19_39FA)
    }

    @Test func allByteValues() {
        #expect(CRC64.checksum((0...255).map { UInt8($0) }) == 8_232_944_260_754_389_680)
    }

    @Test func oneMebibyteOfZeros() {
        #expect(CRC64.checksum([UInt8](repeating: 0, count: 1 << 20)) == 6_947_770_692_288_575_170)
    }

    @Test func repeatedABC() {
        let data = Array(String(repeating: "abc", count: 100_000).utf8)
        let bytewise = data.withUnsafeBytes { CRC64.updateBytewise(0, $0) }
        #expect(CRC64.checksum(data) == bytewise)
    }

    @Test func slicingMatchesBytewiseOnEveryLengthAndAlignment() {
        var generator = SplitMix64(seed: 42)
        let data = (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        data.withUnsafeBytes { all in
            for start in 0..<9 {
                for length in stride(from: 0, to: 600, by: 1) where start + length <= all.count {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(CRC64.update(0, slice) == CRC64.updateBytewise(0, slice))
                }
            }
        }
    }

    @Test func incrementalUpdateEqualsOneShot() {
        let data = Array("The quick brown fox jumps over the lazy dog".utf8)
        var crc = CRC64()
        crc.update(data[0..<10])
        crc.update(data[10...])
        #expect(crc.value == CRC64.checksum(data))
        #expect(crc.value == 6_583_902_852_472_283_588)
    }

    @Test func combineMatchesTheSDKExample() {
        let a: UInt64 = 17_895_497_229_571_693_516
        let b: UInt64 = 8_354_683_611_521_900_205
        #expect(CRC64.combine(a, b, length2: 33) == 6_583_902_852_472_283_588)
        #expect(CRC64.combine(a, 0, length2: 0) == a)
    }

    @Test func combineMultipartExample() {
        let parts: [(crc: UInt64, length: UInt64)] = [
            (9_414_173_449_583_348_420, 102_400),
            (7_580_262_701_375_321_807, 102_400),
            (6_687_169_712_012_404_852, 45_200),
        ]
        #expect(CRC64.combine(parts: parts) == 13_432_245_547_817_971_660)
    }

    @Test func combineMatchesConcatenationForRandomSplits() {
        var generator = SplitMix64(seed: 7)
        let data = (0..<20_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let whole = CRC64.checksum(data)
        for _ in 0..<200 {
            let split = Int(generator.next() % UInt64(data.count + 1))
            let left = CRC64.checksum(data[..<split])
            let right = CRC64.checksum(data[split...])
            #expect(CRC64.combine(left, right, length2: UInt64(data.count - split)) == whole)
        }
    }

    @Test func combineWithHugeLengthsIsConsistent() {
        // combine(combine(a, b, n), c, m) == combine(a, combine(b, c, m), n + m): associativity at sizes no test could feed.
        let a: UInt64 = 0x1234_5678_9ABC_DEF0
        let b: UInt64 = 0x0FED_CBA9_8765_4321
        let c: UInt64 = 0xDEAD_BEEF_CAFE_F00D
        let n: UInt64 = 5 << 30
        let m: UInt64 = (1 << 40) + 12345
        #expect(CRC64.combine(CRC64.combine(a, b, length2: n), c, length2: m)
            == CRC64.combine(a, CRC64.combine(b, c, length2: m), length2: n + m))
    }

    @Test func headerValueRoundTrips() {
        #expect(CRC64(value: 5_981_764_153_023_615_706).headerValue == "5981764153023615706")
        #expect(CRC64.parseHeaderValue("18446744073709551615") == UInt64.max)
        #expect(CRC64.parseHeaderValue("-1") == nil)
        #expect(CRC64.parseHeaderValue("") == nil)
        #expect(CRC64.parseHeaderValue("12a") == nil)
        #expect(CRC64.parseHeaderValue("18446744073709551616") == nil)
    }
}

@Suite("CRC-64 carry-less-multiply path")
struct CRC64AcceleratedTests {
    #if arch(x86_64) || (arch(arm64) && canImport(Darwin))
    @Test func hardwarePathIsUsedOnThisMachine() {
        // Every x86-64 CPU since 2010 has PCLMULQDQ and every Apple arm64 chip has PMULL; if this fails, the fast
        // path silently fell back. (Some arm64 Linux boards, e.g. the Raspberry Pi 4, lack PMULL.)
        #expect(CRC64.isHardwareAccelerated)
    }
    #endif

    @Test func matchesTheTableVersionOnEveryLengthAndAlignment() {
        var generator = SplitMix64(seed: 2026)
        let data = (0..<70_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        data.withUnsafeBytes { all in
            for start in 0..<17 {
                for length in 0..<1100 where start + length <= all.count {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(CRC64.update(0, slice) == CRC64.updateSlicingBy8(0, slice))
                }
            }
            for _ in 0..<300 {
                let start = Int(generator.next() % 4096)
                let length = Int(generator.next() % UInt64(all.count - start))
                let initial = generator.next()
                let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                #expect(CRC64.update(initial, slice) == CRC64.updateSlicingBy8(initial, slice))
            }
        }
    }

    @Test func largeBuffersOfSpecialBytes() {
        for fill: UInt8 in [0x00, 0xFF, 0x80, 0x01] {
            let data = [UInt8](repeating: fill, count: (1 << 20) + 13)
            data.withUnsafeBytes { #expect(CRC64.update(0, $0) == CRC64.updateSlicingBy8(0, $0)) }
        }
    }
}
