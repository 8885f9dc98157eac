/// CRC-64/XZ, the checksum OSS sends as `x-oss-hash-crc64ecma`.
///
/// Reflected polynomial `0xC96C5795D7870F42`, initial value and final XOR `0xFFFF_FFFF_FFFF_FFFF`.
/// The check value for `"123456789"` is `0x995DC9BBDF1939FA`; the CRC of no bytes is `0`.
///
/// The value is a running checksum: `update` continues it with more bytes, exactly like feeding
/// the concatenation in one go. ``combine(_:_:length2:)`` joins the CRCs of two adjacent pieces
/// without reading the bytes again, which is how the CRC of a multipart object is derived from
/// the CRCs of its parts.
public struct CRC64: Sendable, Hashable {
    /// The CRC of all bytes fed so far.
    public var value: UInt64

    /// Starts a checksum, or continues one whose bytes so far had the CRC `value`.
    @inlinable
    public init(value: UInt64 = 0) {
        self.value = value
    }

    /// Feeds more bytes.
    @inlinable
    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        value = CRC64.update(value, buffer)
    }

    /// Feeds more bytes.
    @inlinable
    public mutating func update(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            value = CRC64.update(value, UnsafeRawBufferPointer(buffer))
        }
        if done == nil {
            let array = Array(bytes)
            array.withUnsafeBytes { value = CRC64.update(value, $0) }
        }
    }

    /// The CRC-64/XZ of `bytes`.
    @inlinable
    public static func checksum(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var crc = CRC64()
        crc.update(bytes)
        return crc.value
    }

    /// The CRC-64/XZ of the bytes in `buffer`.
    @inlinable
    public static func checksum(_ buffer: UnsafeRawBufferPointer) -> UInt64 {
        update(0, buffer)
    }

    /// Continues the CRC `crc` over `buffer`, using the fastest implementation available: carry-less-multiply
    /// folding where the CPU has it (x86-64 PCLMULQDQ, arm64 PMULL), slicing-by-8 tables otherwise.
    public static func update(_ crc: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        if buffer.count >= CRC64CLMUL.threshold && CRC64CLMUL.isAvailable {
            return CRC64CLMUL.update(crc, buffer)
        }
        return CRC64Tables.updateSlicingBy8(crc, buffer)
    }

    /// Continues the CRC with the slicing-by-8 table code only (the portable path, and the reference the folding
    /// path is tested against).
    public static func updateSlicingBy8(_ crc: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        CRC64Tables.updateSlicingBy8(crc, buffer)
    }

    /// Whether ``update(_:_:)`` uses carry-less multiplication on this machine.
    public static var isHardwareAccelerated: Bool { CRC64CLMUL.isAvailable }

    /// Continues the CRC `crc` over `buffer` one byte at a time. The reference the faster paths are tested against.
    public static func updateBytewise(_ crc: UInt64, _ buffer: UnsafeRawBufferPointer) -> UInt64 {
        CRC64Tables.updateBytewise(crc, buffer)
    }
}

extension CRC64 {
    /// The CRC as OSS writes it in `x-oss-hash-crc64ecma`: unsigned decimal, no leading zeros.
    public var headerValue: String { String(value) }

    /// Parses an `x-oss-hash-crc64ecma` value (unsigned decimal). Returns `nil` for anything else.
    @inlinable
    public static func parseHeaderValue(_ text: some StringProtocol) -> UInt64? {
        // One pass over the bytes (it runs on every response): digits only, nothing that overflows.
        var value: UInt64 = 0
        var digits = 0
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            guard !overflowed, !carried else { return nil }
            value = sum
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}
