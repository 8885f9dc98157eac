import Crypto
import NIOPosix
import OSSCRC64

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import Foundation

extension FileIO {
    /// A byte range of a file: the unit in which the store hands out object bytes (see
    /// ``ObjectStore/objectPieces(_:_:range:)``).
    struct Piece: Sendable {
        var path: String
        var offset: Int64
        var length: Int64
    }

    /// Writes `pieces` one after the other into the new file `destination` (streamed, 1 MiB at a time), fsyncs it
    /// and returns the MD5, CRC-64 and size of what was written.
    static func assemble(_ pieces: [Piece], into destination: String) async throws -> BodyDigest {
        try await ServerIO.blockingPool.runIfActive {
            let out = try create(destination)
            defer { close(out) }
            var md5 = Insecure.MD5()
            var crc = CRC64()
            var size: Int64 = 0
            try forEachChunk(of: pieces) { bytes in
                md5.update(bufferPointer: bytes)
                crc.update(bytes)
                try writeAll(out, bytes, path: destination)
                size += Int64(bytes.count)
            }
            try sync(out, path: destination)
            return BodyDigest(size: size, md5: Array(md5.finalize()), crc64: crc.value)
        }
    }

    /// The MD5 of `pieces` read one after the other (a sequential upload's content MD5).
    static func md5(of pieces: [Piece]) async throws -> [UInt8] {
        try await ServerIO.blockingPool.runIfActive {
            var md5 = Insecure.MD5()
            try forEachChunk(of: pieces) { md5.update(bufferPointer: $0) }
            return Array(md5.finalize())
        }
    }

    /// Calls `body` with the bytes of `pieces` in order, 1 MiB at a time (blocking reads).
    private static func forEachChunk(of pieces: [Piece], _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        for piece in pieces where piece.length > 0 {
            let input = open(piece.path, O_RDONLY)
            if input < 0 { throw Failure(operation: "open", path: piece.path, errno: errno) }
            defer { close(input) }
            var position = piece.offset
            let end = piece.offset + piece.length
            while position < end {
                let wanted = Int(min(Int64(chunk), end - position))
                let n = pread(input, buffer.baseAddress!, wanted, off_t(position))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Failure(operation: "read", path: piece.path, errno: errno)
                }
                if n == 0 { throw Failure(operation: "read (file shorter than recorded)", path: piece.path, errno: EIO) }
                try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                position += Int64(n)
            }
        }
    }
}
