extension CRC64 {
    /// The CRC of `A ‖ B` from `crc(A)`, `crc(B)` and the length of `B`, without reading any bytes.
    ///
    /// `crc(A ‖ B) = crc(A) · x^(8·len(B)) mod P  ⊕  crc(B)` in the reflected bit order. The power of `x`
    /// is built from a table of `x^(2^k) mod P`, so the cost grows with the number of bits in `length2`
    /// (at most 64 carry-less multiplications), not with the length itself.
    public static func combine(_ crc1: UInt64, _ crc2: UInt64, length2: UInt64) -> UInt64 {
        if length2 == 0 { return crc1 }
        return multiplyModP(xPower8n(length2), crc1) ^ crc2
    }

    /// A multipart object's CRC: the left fold of ``combine(_:_:length2:)`` over `(crc, length)` pairs in order.
    public static func combine(parts: some Sequence<(crc: UInt64, length: UInt64)>) -> UInt64 {
        var total: UInt64 = 0
        for part in parts {
            total = combine(total, part.crc, length2: part.length)
        }
        return total
    }

    /// `a · b mod P` with both operands in the reflected representation (bit 63 is `x^0`).
    @usableFromInline
    static func multiplyModP(_ a: UInt64, _ b: UInt64) -> UInt64 {
        var a = a
        var b = b
        var product: UInt64 = 0
        while a != 0 {
            if a & (1 << 63) != 0 {
                product ^= b
            }
            a <<= 1
            b = (b & 1) == 1 ? (b >> 1) ^ CRC64Tables.polynomial : b >> 1
        }
        return product
    }

    /// `x^(2^k) mod P` for k = 0..<67 (enough for `8 · n` with any 64-bit `n`).
    static let powersOfTwo: [UInt64] = {
        var table = [UInt64]()
        table.reserveCapacity(67)
        var p: UInt64 = 1 << 62  // x^1
        for _ in 0..<67 {
            table.append(p)
            p = multiplyModP(p, p)
        }
        return table
    }()

    /// `x^(8n) mod P`.
    static func xPower8n(_ n: UInt64) -> UInt64 {
        xPower(n, shift: 3)
    }

    /// `x^(n · 2^shift) mod P` in the reflected representation.
    static func xPower(_ n: UInt64, shift: Int = 0) -> UInt64 {
        var result: UInt64 = 1 << 63  // x^0
        var n = n
        var k = shift
        while n != 0 {
            if n & 1 == 1 {
                result = multiplyModP(powersOfTwo[k], result)
            }
            n >>= 1
            k += 1
        }
        return result
    }
}
