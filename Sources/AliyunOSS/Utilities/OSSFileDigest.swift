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
        do {
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                var md5 = Insecure.MD5()
                var crc = CRC64()
                var total: Int64 = 0
                for try await chunk in handle.readChunks(
                    in: offset..<(offset + length), chunkLength: .bytes(AsyncHTTPClientTransport.fileChunkLength))
                {
                    chunk.withUnsafeReadableBytes {
                        md5.update(bufferPointer: $0)
                        crc.update($0)
                    }
                    total += Int64(chunk.readableBytes)
                }
                guard total == length else {
                    throw OSSClientError(.fileCantRead, "\(path) ended after \(total) of \(length) bytes")
                }
                return Result(contentMD5: Data(md5.finalize()).base64EncodedString(), crc64: crc.value)
            }
        } catch let error as OSSClientError {
            throw error
        } catch {
            throw OSSClientError(.fileCantRead, "cannot read \(path)", underlying: error)
        }
    }

    /// One streamed pass over a file range computing only its CRC-64 (no MD5).
    static func crc64(path: String, offset: Int64, length: Int64) async throws -> UInt64 {
        do {
            return try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                var crc = CRC64()
                var total: Int64 = 0
                for try await chunk in handle.readChunks(
                    in: offset..<(offset + length), chunkLength: .bytes(AsyncHTTPClientTransport.fileChunkLength))
                {
                    chunk.withUnsafeReadableBytes { crc.update($0) }
                    total += Int64(chunk.readableBytes)
                }
                guard total == length else {
                    throw OSSClientError(.fileCantRead, "\(path) ended after \(total) of \(length) bytes")
                }
                return crc.value
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
