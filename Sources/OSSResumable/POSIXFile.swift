#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin, checked wrappers over the POSIX calls the record store and the file identity need.
/// Every failure carries the path and `errno`; nothing here traps on bad input.
/// An `errno` value as an `Error`, for `Result`.
struct POSIXErrno: Error {
    let value: Int32
    init(_ value: Int32) { self.value = value }
}

enum POSIXFile {
    /// The subset of `stat` the resumable layer uses.
    struct Status {
        var size: Int64
        var modificationSeconds: Int64
        var modificationNanoseconds: Int64
        var inode: UInt64
        var device: UInt64
        var isRegularFile: Bool
        var isDirectory: Bool
    }

    static var errnoValue: Int32 { errno }

    static func status(path: String) -> Result<Status, POSIXErrno> {
        var st = stat()
        guard stat(path, &st) == 0 else { return .failure(POSIXErrno(errno)) }
        return .success(makeStatus(st))
    }

    static func status(fd: Int32) -> Result<Status, POSIXErrno> {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failure(POSIXErrno(errno)) }
        return .success(makeStatus(st))
    }

    private static func makeStatus(_ st: stat) -> Status {
        #if canImport(Darwin)
        let seconds = Int64(st.st_mtimespec.tv_sec)
        let nanos = Int64(st.st_mtimespec.tv_nsec)
        #else
        let seconds = Int64(st.st_mtim.tv_sec)
        let nanos = Int64(st.st_mtim.tv_nsec)
        #endif
        let type = st.st_mode & S_IFMT
        return Status(
            size: Int64(st.st_size),
            modificationSeconds: seconds,
            modificationNanoseconds: nanos,
            inode: UInt64(st.st_ino),
            device: UInt64(truncatingIfNeeded: st.st_dev),
            isRegularFile: type == S_IFREG,
            isDirectory: type == S_IFDIR
        )
    }

    static func openForReading(_ path: String) -> Result<Int32, POSIXErrno> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        return fd >= 0 ? .success(fd) : .failure(POSIXErrno(errno))
    }

    /// Creates `path` exclusively, mode 0600.
    static func createExclusive(_ path: String) -> Result<Int32, POSIXErrno> {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        return fd >= 0 ? .success(fd) : .failure(POSIXErrno(errno))
    }

    /// Opens or creates `path` for a lock, mode 0600.
    static func openLockFile(_ path: String) -> Result<Int32, POSIXErrno> {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        return fd >= 0 ? .success(fd) : .failure(POSIXErrno(errno))
    }

    static func close(_ fd: Int32) {
        #if canImport(Darwin)
        _ = Darwin.close(fd)
        #elseif canImport(Glibc)
        _ = Glibc.close(fd)
        #else
        _ = Musl.close(fd)
        #endif
    }

    /// Reads up to `count` bytes at `offset`, retrying short reads and EINTR. Returns fewer bytes only at EOF.
    static func read(fd: Int32, offset: Int64, count: Int) -> Result<[UInt8], POSIXErrno> {
        guard count > 0 else { return .success([]) }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = buffer.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return pread(fd, base + done, count - done, off_t(offset + Int64(done)))
            }
            if n < 0 {
                if errno == EINTR { continue }
                return .failure(POSIXErrno(errno))
            }
            if n == 0 { break }
            done += n
        }
        buffer.removeLast(count - done)
        return .success(buffer)
    }

    /// Writes all of `bytes`, retrying short writes and EINTR.
    static func writeAll(fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return write(fd, base + done, bytes.count - done)
            }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if n == 0 { return EIO }
            done += n
        }
        return nil
    }

    static func rename(_ from: String, _ to: String) -> Int32? {
        #if canImport(Darwin)
        Darwin.rename(from, to) == 0 ? nil : errno
        #elseif canImport(Glibc)
        Glibc.rename(from, to) == 0 ? nil : errno
        #else
        Musl.rename(from, to) == 0 ? nil : errno
        #endif
    }

    /// Removes `path`; a missing file is not an error.
    static func remove(_ path: String) -> Int32? {
        if unlink(path) == 0 || errno == ENOENT { return nil }
        return errno
    }

    /// Creates `path` and its missing parents (mode 0700). An existing directory is fine.
    static func makeDirectories(_ path: String) -> Int32? {
        if case .success(let st) = status(path: path) {
            return st.isDirectory ? nil : ENOTDIR
        }
        var prefix = ""
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST { return errno }
        }
        if case .success(let st) = status(path: path), st.isDirectory { return nil }
        return ENOTDIR
    }

    /// Takes an exclusive `flock` without blocking. Returns `nil` on success, `EWOULDBLOCK` when held elsewhere.
    static func tryLockExclusive(fd: Int32) -> Int32? {
        while true {
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return nil }
            if errno == EINTR { continue }
            return errno
        }
    }

    static var wouldBlock: Int32 { EWOULDBLOCK }
    static var noSuchFile: Int32 { ENOENT }
    static var notRegularFile: Int32 { EINVAL }
}
