#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OSSResumable

/// The few POSIX file operations of a resumable download, each failing with `fileCantWrite` and the errno.
enum OSSDownloadTempFileIO {
    /// Creates (or truncates) the temporary file at `path` and gives it `length` bytes (sparse), after checking
    /// that the file system has room for them.
    static func prepare(path: String, length: Int64) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure("cannot create the temporary file \(path)", errno) }
        defer { _ = close(fd) }
        var fs = statvfs()
        if fstatvfs(fd, &fs) == 0 {
            let (available, overflow) = UInt64(fs.f_bavail).multipliedReportingOverflow(by: UInt64(fs.f_frsize))
            if !overflow, length > 0, available < UInt64(length) {
                throw failure("not enough space for \(length) bytes beside the destination (\(available) available)", ENOSPC)
            }
        }
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw failure("cannot size the temporary file \(path) to \(length) bytes", errno)
        }
    }

    /// The size of the regular file at `path`, or `nil` when there is none.
    static func size(path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(st.st_size)
    }

    /// Removes `path`; a missing file is fine. Returns the errno of a failure.
    @discardableResult
    static func remove(path: String) -> Int32? {
        if unlink(path) == 0 || errno == ENOENT { return nil }
        return errno
    }

    /// Makes the temporary file durable (``OSSDurableFile/sync(path:)``: `F_FULLFSYNC` on Darwin), renames it
    /// over `to` atomically and syncs the directory (``OSSDurableFile/rename(_:to:)``). Blocking: call it off the
    /// cooperative pool (``OSSBlockingIO``).
    static func commit(from: String, to: String) throws {
        if let code = OSSDurableFile.sync(path: from) {
            throw failure("cannot sync the temporary file \(from)", code)
        }
        do {
            try OSSDurableFile.rename(from, to: to)
        } catch {
            if case .fileCantWrite(let path, let code) = error {
                throw failure("cannot rename the temporary file over \(to) (\(path))", code)
            }
            throw OSSClientError(.fileCantWrite, "cannot rename the temporary file over \(to): \(error)", underlying: error)
        }
    }

    static func failure(_ message: String, _ code: Int32) -> OSSClientError {
        OSSClientError(.fileCantWrite, "\(message) (errno \(code): \(String(cString: strerror(code))))")
    }
}
