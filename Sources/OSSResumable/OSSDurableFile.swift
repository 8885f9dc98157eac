#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one place that decides how bytes reach stable storage: every record, temporary download file and atomic
/// destination the SDK renames into place goes through here.
///
/// - ``sync(fd:)``: `fcntl(F_FULLFSYNC)` on Darwin, where plain `fsync` only hands the data to the drive, which
///   may keep it in a volatile cache; `fsync` when the file system does not support `F_FULLFSYNC` (some network
///   and FUSE file systems), never after an I/O error, and `fsync` on every other platform.
/// - ``rename(_:to:)``: `rename(2)`, then a sync of the destination's directory, so that the new name itself
///   survives a power cut.
/// - ``write(_:to:temporaryPath:)``: the whole sequence for a small file: write a temporary file in the same
///   directory, sync it, rename it over the destination, sync the directory. A reader sees the old file or the
///   new one, never a mix.
///
/// These calls block: callers in async code run them off Swift's cooperative pool (see the SDK's
/// `OSSBlockingIO`, or NIO's `withUnsafeDescriptor`, which runs on NIO's thread pool).
package enum OSSDurableFile {
    /// Flushes the data and metadata of the open file `fd` to stable storage. Returns `errno` on failure.
    package static func sync(fd: Int32) -> Int32? {
        #if canImport(Darwin)
        while true {
            if fcntl(fd, F_FULLFSYNC) != -1 { return nil }
            let code = errno
            if code == EINTR { continue }
            // Only a file system without F_FULLFSYNC falls back to fsync; an I/O error (EIO) is the answer.
            guard code == ENOTSUP || code == EOPNOTSUPP || code == EINVAL || code == ENOTTY else { return code }
            break
        }
        #endif
        while true {
            if fsync(fd) == 0 { return nil }
            if errno == EINTR { continue }
            return errno
        }
    }

    /// Asks the kernel to start writing the range `[offset, offset + length)` of the open file `fd` to storage now,
    /// without waiting (Linux: `posix_fadvise(POSIX_FADV_DONTNEED)`, which starts writeback of the range's dirty
    /// pages and lets the cache drop them once written; a no-op elsewhere). A later ``sync(fd:)`` then finds little
    /// left to write: a download that syncs its temporary file before every record keeps each sync short instead of
    /// flushing everything since the last one. Advisory: failures are ignored.
    package static func startWriteback(fd: Int32, offset: Int64, length: Int64) {
        #if os(Linux)
        guard length > 0 else { return }
        _ = posix_fadvise(fd, off_t(offset), off_t(length), POSIX_FADV_DONTNEED)
        #endif
    }

    /// Syncs the regular file at `path` (opened read-only: a sync applies to the file, whichever descriptor
    /// wrote it). Returns `errno` on failure.
    package static func sync(path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { POSIXFile.close(fd) }
        return sync(fd: fd)
    }

    /// Syncs the directory at `path`, so that a rename, creation or removal inside it is durable. Some file
    /// systems refuse to sync directories (`EINVAL`): the change is then as durable as that file system makes it.
    package static func syncDirectory(_ path: String) -> Int32? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return errno }
        defer { POSIXFile.close(fd) }
        if let code = sync(fd: fd), code != EINVAL { return code }
        return nil
    }

    /// Renames `from` over `to` atomically, then syncs the directory of `to`.
    ///
    /// - Throws: `fileCantWrite` naming the path that failed (`to` for the rename, its directory for the sync).
    package static func rename(_ from: String, to: String) throws(OSSResumableError) {
        if let code = POSIXFile.rename(from, to) { throw .fileCantWrite(path: to, errno: code) }
        let directory = parentDirectory(of: to)
        if let code = syncDirectory(directory) { throw .fileCantWrite(path: directory, errno: code) }
    }

    /// Writes `bytes` to `path` atomically and durably: `temporaryPath` (which must be in the same directory and
    /// must not exist) is created with mode 0600, written, synced and renamed over `path`, and the directory is
    /// synced. On failure the temporary file is removed and `path` is untouched (or already replaced, when only
    /// the final directory sync failed).
    ///
    /// - Throws: `fileCantWrite` naming the path that failed.
    package static func write(_ bytes: [UInt8], to path: String, temporaryPath: String) throws(OSSResumableError) {
        let fd: Int32
        switch POSIXFile.createExclusive(temporaryPath) {
        case .success(let opened): fd = opened
        case .failure(let code): throw .fileCantWrite(path: temporaryPath, errno: code.value)
        }
        var failure = POSIXFile.writeAll(fd: fd, bytes)
        if failure == nil { failure = sync(fd: fd) }
        POSIXFile.close(fd)
        if failure == nil { failure = POSIXFile.rename(temporaryPath, path) }
        if let code = failure {
            _ = POSIXFile.remove(temporaryPath)
            throw .fileCantWrite(path: path, errno: code)
        }
        let directory = parentDirectory(of: path)
        if let code = syncDirectory(directory) { throw .fileCantWrite(path: directory, errno: code) }
    }

    /// The directory part of `path` (`/` for a file at the root, `.` for a bare name).
    package static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let parent = String(path[..<slash])
        return parent.isEmpty ? "/" : parent
    }
}
