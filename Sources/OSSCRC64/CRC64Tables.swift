/// Table-driven CRC-64/XZ: a byte-wise reference and a slicing-by-8 implementation.
@usableFromInline
enum CRC64Tables {
    @usableFromInline
    static let polynomial: UInt64 = 0xC96C_5795_D787_0F42

    /// `tables[k][b]`: the register after feeding byte `b` followed by `k` zero bytes, flattened as `k * 256 + b`.
    @usableFromInline
    static let tables: [UInt64] = {
        var t = [UInt64](repeating: 0, count: 8 * 256)
        for b in 0..<256 {
            var r = UInt64(b)
            for _ in 0..<8 {
                r = (r & 1) == 1 ? (r >> 1) ^ polynomial : r >> 1
            }
            t[b] = r
        }
        for k in 1..<8 {
            for b in 0..<256 {
                let previous = t[(k - 1) * 256 + b]
                t[k * 256 + b] = t[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return t
    }()

    @usableFromInline
    static func updateBytewise(_ crc: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        var r = ~crc
        tables.withUnsafeBufferPointer { t in
            for byte in buffer {
                r = t[Int(UInt8(truncatingIfNeeded: r) ^ byte)] ^ (r >> 8)
            }
        }
        return ~r
    }

    @usableFromInline
    static func updateSlicingBy8(_ crc: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        ~rawSlicingBy8(~crc, buffer)
    }

    /// Slicing-by-8 on the raw register (no pre- or post-inversion).
    @usableFromInline
    static func rawSlicingBy8(_ register: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        var r = register
        let count = buffer.count
        guard count > 0, let base = buffer.baseAddress else { return register }
        tables.withUnsafeBufferPointer { tp in
            let t = tp.baseAddress!
            var i = 0
            while i + 8 <= count {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ r
                r = t[7 * 256 + Int(word & 0xFF)]
                    ^ t[6 * 256 + Int((word >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((word >> 16) & 0xFF)]
                    ^ t[4 * 256 + Int((word >> 24) & 0xFF)]
                    ^ t[3 * 256 + Int((word >> 32) & 0xFF)]
                    ^ t[2 * 256 + Int((word >> 40) & 0xFF)]
                    ^ t[1 * 256 + Int((word >> 48) & 0xFF)]
                    ^ t[Int(word >> 56)]
                i += 8
            }
            while i < count {
                let byte = base.load(fromByteOffset: i, as: UInt8.self)
                r = t[Int(UInt8(truncatingIfNeeded: r) ^ byte)] ^ (r >> 8)
                i += 1
            }
        }
        return r
    }
}
