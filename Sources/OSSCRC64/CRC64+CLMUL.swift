import COSSCRC64

/// CRC-64/XZ by carry-less-multiplication folding (PCLMULQDQ on x86-64, PMULL on arm64), with the table code as
/// fallback.
///
/// Four 128-bit accumulators fold 64 bytes per step; they are folded into one, and the last 16 bytes of state
/// are reduced with the table code from register 0. The result equals the table implementation on every input
/// (tested over every length and alignment up to several hundred bytes and on random buffers).
enum CRC64CLMUL {
    /// Whether this CPU runs the folding path.
    static let isAvailable: Bool = oss_crc64_fold_available() != 0

    /// Below this many bytes the table code is as fast.
    static let threshold = 256

    /// Folding constants in the reflected representation: x^(512+63), x^(512-1), x^(128+63), x^(128-1), each mod P.
    static let constants: [UInt64] = [
        CRC64.xPower(512 + 63), CRC64.xPower(512 - 1), CRC64.xPower(128 + 63), CRC64.xPower(128 - 1),
    ]

    static func update(_ crc: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        let blocks = buffer.count / 16
        guard let base = buffer.baseAddress, blocks >= 4 else {
            return CRC64Tables.updateSlicingBy8(crc, buffer)
        }
        var folded: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &folded) { out in
            constants.withUnsafeBufferPointer { k in
                oss_crc64_fold(
                    ~crc, base.assumingMemoryBound(to: UInt8.self), blocks, k.baseAddress!,
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        var register = withUnsafeBytes(of: &folded) { CRC64Tables.rawSlicingBy8(0, $0) }
        register = CRC64Tables.rawSlicingBy8(register, UnsafeRawBufferPointer(rebasing: buffer[(blocks * 16)...]))
        return ~register
    }
}
