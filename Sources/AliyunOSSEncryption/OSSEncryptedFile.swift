import AliyunOSS
import Crypto
import Foundation
import OSSCRC64

/// The file work of encrypted transfers: encrypting a plaintext file (or a range of it) into a ciphertext file, and
/// decrypting a response body into a file that replaces its destination only once the checks pass.
enum OSSEncryptedFile {
    static let chunkLength = 1 << 20

    static func temporaryURL(beside destination: URL? = nil) -> URL {
        let name = ".oss-encryption-\(UUID().uuidString).tmp"
        if let destination { return destination.deletingLastPathComponent().appendingPathComponent(name) }
        return FileManager.default.temporaryDirectory.appendingPathComponent(name)
    }

    static func openForReading(_ url: URL) throws -> FileHandle {
        do { return try FileHandle(forReadingFrom: url) } catch {
            throw OSSClientError(.fileCantRead, "cannot read \(url.path)")
        }
    }

    /// Reads `length` bytes (to the end when `nil`) of `url` from `offset`.
    static func read(_ url: URL, offset: Int64, length: Int64) throws -> Data {
        let handle = try openForReading(url)
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: Int(length)) ?? Data()
        guard data.count == Int(length) else {
            throw OSSClientError(.invalidArgument, "\(url.path) ended before byte \(offset + length)")
        }
        return data
    }

    /// Writes `bytes` into the existing file `url` at `offset` and synchronizes it to disk (parts of a download,
    /// each through its own handle).
    static func write(_ bytes: Data, into url: URL, at offset: Int64) throws {
        let handle: FileHandle
        do { handle = try FileHandle(forWritingTo: url) } catch {
            throw OSSClientError(.fileCantWrite, "cannot write \(url.path)")
        }
        do {
            try handle.seek(toOffset: UInt64(offset))
            try handle.write(contentsOf: bytes)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            throw OSSClientError(.fileCantWrite, "cannot write \(url.path)")
        }
    }

    /// Encrypts `length` bytes of `source` from `offset` (to its end when `nil`) into a new file `destination`;
    /// returns the plaintext's length and MD5.
    static func encrypt(_ source: URL, offset: Int64, length: Int64?, into destination: URL, stream: OSSCTRStream)
        throws -> (length: Int64, md5: Data)
    {
        var stream = stream
        let input = try openForReading(source)
        defer { try? input.close() }
        try input.seek(toOffset: UInt64(offset))
        guard FileManager.default.createFile(atPath: destination.path, contents: nil) else {
            throw OSSClientError(.fileCantWrite, "cannot create \(destination.path)")
        }
        let output = try FileHandle(forWritingTo: destination)
        defer { try? output.close() }
        var md5 = Insecure.MD5()
        var total: Int64 = 0
        while length.map({ total < $0 }) ?? true {
            try Task.checkCancellation()
            let want = length.map { Int(min(Int64(chunkLength), $0 - total)) } ?? chunkLength
            guard let chunk = try input.read(upToCount: want), !chunk.isEmpty else { break }
            md5.update(data: chunk)
            try output.write(contentsOf: try stream.apply(chunk))
            total += Int64(chunk.count)
        }
        if let length, total != length {
            throw OSSClientError(.invalidArgument, "\(source.path) ended before byte \(offset + length)")
        }
        return (total, Data(md5.finalize()))
    }

    /// Renames `temporary` over `destination` in one step (rename(2): an existing file is replaced atomically;
    /// FileManager's `replaceItemAt` fails on Linux when the destination exists).
    static func replace(_ destination: URL, with temporary: URL) throws {
        guard rename(temporary.path, destination.path) == 0 else {
            let code = errno
            throw OSSClientError(.fileCantWrite, "cannot move \(temporary.path) to \(destination.path) (errno \(code))")
        }
    }

    /// The length and MD5 of a whole file.
    static func digest(_ url: URL) throws -> (length: Int64, md5: Data) {
        let input = try openForReading(url)
        defer { try? input.close() }
        var md5 = Insecure.MD5()
        var total: Int64 = 0
        while let chunk = try input.read(upToCount: chunkLength), !chunk.isEmpty {
            md5.update(data: chunk)
            total += Int64(chunk.count)
        }
        return (total, Data(md5.finalize()))
    }

    /// Writes `body` (decrypted by `stream`, the first `discard` plaintext bytes dropped; as is when `stream` is
    /// `nil`) to a temporary file beside `destination`, checks the ciphertext's CRC-64 against the server's (whole
    /// objects) and calls `verify` with the written length and MD5, then moves the file into place.
    static func write(
        _ body: OSSResponseBody, result: OSSGetObjectResult, to destination: URL, stream: OSSCTRStream?,
        discard: Int64, verify: (Int64, Data) throws -> Void
    ) async throws -> OSSGetObjectResult {
        let temporary = temporaryURL(beside: destination)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw OSSClientError(.fileCantWrite, "cannot create \(temporary.path)")
        }
        var moved = false
        defer { if !moved { try? FileManager.default.removeItem(at: temporary) } }
        let output = try FileHandle(forWritingTo: temporary)
        var stream = stream
        var crc = CRC64()
        var md5 = Insecure.MD5()
        var received: Int64 = 0
        var written: Int64 = 0
        var toDrop = discard
        do {
            for try await chunk in body {
                chunk.withUnsafeBytes { crc.update($0) }
                received += Int64(chunk.count)
                var plain = try stream?.apply(chunk) ?? chunk
                if toDrop > 0 {
                    let dropped = Int(min(toDrop, Int64(plain.count)))
                    plain = Data(plain.dropFirst(dropped))
                    toDrop -= Int64(dropped)
                }
                md5.update(data: plain)
                try output.write(contentsOf: plain)
                written += Int64(plain.count)
            }
            try output.close()
        } catch {
            try? output.close()
            throw error
        }
        if let announced = result.contentLength, announced != received {
            throw OSSClientError(.networkError, "the body ended after \(received) of \(announced) bytes")
        }
        if result.statusCode == 200, let server = result.crc64, server != crc.value {
            throw OSSClientError(.invalidCRC, "the downloaded ciphertext's CRC-64 \(crc.value) is not the server's \(server)")
        }
        try verify(written, Data(md5.finalize()))
        try replace(destination, with: temporary)
        moved = true
        var decrypted = result
        decrypted.contentLength = written
        decrypted.receivedCRC64 = crc.value
        decrypted.contentRange?.start += discard
        return decrypted
    }
}
