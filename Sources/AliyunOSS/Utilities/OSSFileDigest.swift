import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One streamed pass over a file range computing its MD5 (for `Content-MD5`) and CRC-64.
enum OSSFileDigest {
    struct Result: Sendable {
        var contentMD5: String
        var crc64: UInt64
    }

    static func compute(path: String, offset: Int64, length: Int64) async throws -> Result {
        var md5 = Insecure.MD5()
        var crc = CRC64()
        try await scan(path: path, offset: offset, length: length) { bytes in
            md5.update(bufferPointer: bytes)
            crc.update(bytes)
        }
        return Result(contentMD5: Data(md5.finalize()).base64EncodedString(), crc64: crc.value)
    }

    /// One streamed pass over a file range computing only its CRC-64 (no MD5).
    static func crc64(path: String, offset: Int64, length: Int64) async throws -> UInt64 {
        var crc = CRC64()
        try await scan(path: path, offset: offset, length: length) { crc.update($0) }
        return crc.value
    }

    /// The chunk size of a scan: 1 MiB (few reads and thread hops for the bytes, little memory).
    static let chunkLength = 1 << 20

    /// Reads exactly `length` bytes at `offset` in chunks, handing each to `body`; a shorter file, or any read
    /// error, is `fileCantRead`.
    private static func scan(
        path: String, offset: Int64, length: Int64, _ body: (UnsafeRawBufferPointer) -> Void
    ) async throws {
        try await OSSFile.withFile(path, .read) { file in
            try await file.forEachChunk(in: offset..<(offset + length), chunkLength: chunkLength) { chunk in
                chunk.withUnsafeBytes { body($0) }
            }
        }
    }

    /// The size of the file at `path`.
    static func fileSize(path: String) async throws -> Int64 {
        try await OSSFile.withFile(path, .read) { file in try file.size() }
    }

    static func contentMD5(_ bytes: some Sequence<UInt8>) -> String {
        Data(Insecure.MD5.hash(data: Array(bytes))).base64EncodedString()
    }
}
