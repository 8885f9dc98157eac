import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import _NIOFileSystem

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

    /// Reads exactly `length` bytes at `offset` in chunks, handing each to `body`; a shorter file, or any read
    /// error, is `fileCantRead`.
    private static func scan(
        path: String, offset: Int64, length: Int64, _ body: (UnsafeRawBufferPointer) -> Void
    ) async throws {
        do {
            try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                var total: Int64 = 0
                for try await chunk in handle.readChunks(
                    in: offset..<(offset + length), chunkLength: .bytes(AsyncHTTPClientTransport.fileChunkLength))
                {
                    chunk.withUnsafeReadableBytes { body($0) }
                    total += Int64(chunk.readableBytes)
                }
                guard total == length else {
                    throw OSSClientError(.fileCantRead, "\(path) ended after \(total) of \(length) bytes")
                }
            }
        } catch let error as OSSClientError {
            throw error
        } catch {
            throw OSSClientError(.fileCantRead, "cannot read \(path)", underlying: error)
        }
    }

    /// The size of the file at `path`.
    static func fileSize(path: String) async throws -> Int64 {
        do {
            guard let info = try await FileSystem.shared.info(forFileAt: FilePath(path)) else {
                throw OSSClientError(.fileCantRead, "\(path) does not exist")
            }
            return info.size
        } catch let error as OSSClientError {
            throw error
        } catch {
            throw OSSClientError(.fileCantRead, "cannot read \(path)", underlying: error)
        }
    }

    static func contentMD5(_ bytes: some Sequence<UInt8>) -> String {
        Data(Insecure.MD5.hash(data: Array(bytes))).base64EncodedString()
    }
}
