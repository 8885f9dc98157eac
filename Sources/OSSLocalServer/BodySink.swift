import Crypto
import NIOCore
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

/// The size and digests of a body received to disk.
struct BodyDigest: Sendable {
    var size: Int64
    var md5: [UInt8]
    var crc64: UInt64

    var md5Hex: String { md5.map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined() }
    var md5Base64: String { Data(md5).base64EncodedString() }
    var etag: String { "\"\(md5Hex)\"" }
}

enum BodySink {
    /// Streams the request body into the new file `path`, computing MD5 and CRC-64 on the way, then fsyncs.
    /// Memory stays bounded (one 1 MiB batch). The file is removed if anything fails.
    static func receive(_ reader: RequestBodyReader, to path: String) async throws -> BodyDigest {
        let fd = try FileIO.create(path)
        var md5 = Insecure.MD5()
        var crc = CRC64()
        var size: Int64 = 0
        let batchSize = 1 << 20
        var pending = ByteBuffer()
        pending.reserveCapacity(batchSize)
        do {
            while let chunk = try await reader.nextChunk() {
                chunk.withUnsafeReadableBytes { raw in
                    md5.update(bufferPointer: raw)
                    crc.update(raw)
                }
                size += Int64(chunk.readableBytes)
                var c = chunk
                pending.writeBuffer(&c)
                if pending.readableBytes >= batchSize {
                    let batch = pending
                    pending = ByteBuffer()
                    pending.reserveCapacity(batchSize)
                    try await NIOThreadPool.singleton.runIfActive {
                        try batch.withUnsafeReadableBytes { try FileIO.writeAll(fd, $0, path: path) }
                    }
                }
            }
            let batch = pending
            try await NIOThreadPool.singleton.runIfActive {
                try batch.withUnsafeReadableBytes { try FileIO.writeAll(fd, $0, path: path) }
                try FileIO.sync(fd, path: path)
            }
            close(fd)
        } catch {
            close(fd)
            FileIO.remove(path)
            throw error
        }
        return BodyDigest(size: size, md5: Array(md5.finalize()), crc64: crc.value)
    }
}
