import Foundation
import OSSCRC64
import OSSResumable
import OSSTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory under the system temporary directory, removed when the body returns.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = try makeWorkDirectory("oss-resumable-tests").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(OSSRecordStore.absolutePath(path))
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Sets a file's modification time with nanosecond precision.
func setModificationTime(_ path: String, seconds: Int, nanoseconds: Int) throws {
    var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
    let rc = utimensat(AT_FDCWD, path, &times, 0)
    if rc != 0 { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}

/// A file identity for pure tests.
func makeIdentity(size: Int64, mtime: Int64 = 1_700_000_000_000_000_000, inode: UInt64? = 42, crc: UInt64 = 7) -> OSSFileIdentity {
    OSSFileIdentity(
        size: size,
        modificationTimeNanoseconds: mtime,
        inode: inode,
        device: 1,
        fingerprint: OSSFileFingerprint(samples: [.init(offset: 0, length: min(size, 65536), crc64: crc)])
    )
}
