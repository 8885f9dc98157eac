import NIOCore

/// Encodes a body as a gzip stream (RFC 1952), chunk by chunk, for `Content-Encoding: gzip` replies.
///
/// The deflate data (RFC 1951) is made of stored blocks: the bytes are framed, not compressed. Any gzip decoder reads
/// it, and the reply is exactly what OSS's compressed replies are to a client (a gzip body sent chunked, without
/// Content-Length); only the bandwidth saving is missing, which a local server does not need.
struct GzipEncoder: Sendable {
    /// The largest stored block (its length field has 16 bits).
    static let maximumBlock = 65_535

    private var crc = CRC32()
    /// The uncompressed length modulo 2^32, as the trailer records it.
    private var length: UInt32 = 0
    private var headerWritten = false

    /// The gzip bytes for the next `chunk` of the body (the first call starts with the gzip header).
    mutating func encode(_ chunk: ByteBuffer) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(chunk.readableBytes + 16 + 5 * (chunk.readableBytes / Self.maximumBlock + 1))
        writeHeaderIfNeeded(&out)
        crc.update(chunk.readableBytesView)
        length &+= UInt32(truncatingIfNeeded: chunk.readableBytes)
        var rest = chunk
        while rest.readableBytes > 0, let block = rest.readSlice(length: min(rest.readableBytes, Self.maximumBlock)) {
            Self.writeStoredBlock(block, final: false, into: &out)
        }
        return out
    }

    /// The bytes ending the stream: a final empty stored block and the trailer (CRC-32 and length).
    mutating func finish() -> ByteBuffer {
        var out = ByteBuffer()
        writeHeaderIfNeeded(&out)
        Self.writeStoredBlock(ByteBuffer(), final: true, into: &out)
        out.writeInteger(crc.value, endianness: .little)
        out.writeInteger(length, endianness: .little)
        return out
    }

    private mutating func writeHeaderIfNeeded(_ out: inout ByteBuffer) {
        guard !headerWritten else { return }
        headerWritten = true
        // Magic, deflate, no flags, no modification time, no extra flags, unknown operating system.
        out.writeBytes([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
    }

    /// A stored block: its 3 header bits (BFINAL, BTYPE 00) padded to a byte, LEN and its one's complement, the bytes.
    private static func writeStoredBlock(_ block: ByteBuffer, final: Bool, into out: inout ByteBuffer) {
        let count = UInt16(block.readableBytes)
        out.writeInteger(UInt8(final ? 1 : 0))
        out.writeInteger(count, endianness: .little)
        out.writeInteger(~count, endianness: .little)
        out.writeImmutableBuffer(block)
    }
}

/// CRC-32 (ISO-HDLC: the polynomial 0x04C11DB7 reflected, as gzip and zlib use it).
struct CRC32: Sendable {
    private static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    private var register: UInt32 = 0xFFFF_FFFF

    var value: UInt32 { ~register }

    mutating func update(_ bytes: some Sequence<UInt8>) {
        var c = register
        Self.table.withUnsafeBufferPointer { table in
            for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        register = c
    }
}
