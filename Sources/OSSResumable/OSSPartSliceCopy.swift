import Crypto
import Foundation
import OSSCRC64

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies one part's byte range of a file into a file of its own (what a background upload task sends), durably,
/// and returns the CRC-64 and MD5 of the bytes copied. Memory stays at one chunk whatever the part's size.
///
/// The copy is written to `destination + ".tmp"` (its name shortened to fit NAME_MAX when `destination`'s is long:
/// ``OSSDerivedFileName``), synced and renamed into place, so `destination` is either absent or complete.
/// Blocking: run it off Swift's cooperative pool.
package enum OSSPartSliceCopy {
    package struct Digest: Sendable, Hashable {
        package var crc64: UInt64
        /// Base64 MD5, as `Content-MD5` wants it.
        package var contentMD5: String
    }

    /// The chunk read and written at a time.
    package static let chunkSize = 1 << 20

    /// Copies `length` bytes at `offset` of `source` to `destination`.
    ///
    /// - Throws: `fileCantRead` when the source is shorter or unreadable, `fileCantWrite` when the copy fails.
    package static func copy(source: String, offset: Int64, length: Int64, to destination: String) throws(OSSResumableError)
        -> Digest
    {
        let input: Int32
        switch POSIXFile.openForReading(source) {
        case .success(let fd): input = fd
        case .failure(let code): throw .fileCantRead(path: source, errno: code.value)
        }
        defer { POSIXFile.close(input) }
        let temporary = OSSDerivedFileName.path(destination, suffix: ".tmp")
        _ = POSIXFile.remove(temporary)
        let output: Int32
        switch POSIXFile.createExclusive(temporary) {
        case .success(let fd): output = fd
        case .failure(let code): throw .fileCantWrite(path: temporary, errno: code.value)
        }
        var crc = CRC64()
        var md5 = Insecure.MD5()
        var done: Int64 = 0
        var failure: OSSResumableError?
        while done < length, failure == nil {
            let count = Int(min(Int64(chunkSize), length - done))
            switch POSIXFile.read(fd: input, offset: offset + done, count: count) {
            case .failure(let code):
                failure = .fileCantRead(path: source, errno: code.value)
            case .success(let bytes) where bytes.isEmpty:
                failure = .fileCantRead(path: source, errno: EIO)
            case .success(let bytes):
                crc.update(bytes)
                md5.update(data: bytes)
                if let code = POSIXFile.writeAll(fd: output, bytes) {
                    failure = .fileCantWrite(path: temporary, errno: code)
                }
                done += Int64(bytes.count)
            }
        }
        if failure == nil, let code = OSSDurableFile.sync(fd: output) { failure = .fileCantWrite(path: temporary, errno: code) }
        POSIXFile.close(output)
        if let failure {
            _ = POSIXFile.remove(temporary)
            throw failure
        }
        try OSSDurableFile.rename(temporary, to: destination)
        return Digest(crc64: crc.value, contentMD5: Data(md5.finalize()).base64EncodedString())
    }
}
