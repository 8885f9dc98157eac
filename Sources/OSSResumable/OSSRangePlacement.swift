import OSSCRC64

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a downloaded range (a file of its own) into the transfer's temporary file at its offset, returning the
/// CRC-64 of the bytes written, then syncs the temporary file. Memory stays at one chunk. Blocking.
package enum OSSRangePlacement {
    /// Creates (or keeps) the temporary file at `path` with `size` bytes (sparse).
    package static func prepare(path: String, size: Int64) throws(OSSResumableError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .fileCantWrite(path: path, errno: errno) }
        defer { POSIXFile.close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { throw .fileCantWrite(path: path, errno: errno) }
        if let code = OSSDurableFile.sync(fd: fd) { throw .fileCantWrite(path: path, errno: code) }
    }

    /// Copies all of `source` (which must hold `length` bytes) into `destination` at `offset`, synced.
    package static func place(source: String, length: Int64, into destination: String, at offset: Int64) throws(OSSResumableError)
        -> UInt64
    {
        let input: Int32
        switch POSIXFile.openForReading(source) {
        case .success(let fd): input = fd
        case .failure(let code): throw .fileCantRead(path: source, errno: code.value)
        }
        defer { POSIXFile.close(input) }
        let output = open(destination, O_WRONLY | O_CLOEXEC)
        guard output >= 0 else { throw .fileCantWrite(path: destination, errno: errno) }
        defer { POSIXFile.close(output) }
        var crc = CRC64()
        var done: Int64 = 0
        while done < length {
            let count = Int(min(Int64(OSSPartSliceCopy.chunkSize), length - done))
            let bytes: [UInt8]
            switch POSIXFile.read(fd: input, offset: done, count: count) {
            case .success(let read) where !read.isEmpty: bytes = read
            case .success: throw .fileCantRead(path: source, errno: EIO)
            case .failure(let code): throw .fileCantRead(path: source, errno: code.value)
            }
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { raw in
                    pwrite(output, raw.baseAddress! + written, bytes.count - written, off_t(offset + done + Int64(written)))
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw .fileCantWrite(path: destination, errno: errno)
                }
                written += n
            }
            crc.update(bytes)
            done += Int64(bytes.count)
        }
        if let code = OSSDurableFile.sync(fd: output) { throw .fileCantWrite(path: destination, errno: code) }
        return crc.value
    }
}
