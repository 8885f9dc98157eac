#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import OSSResumable

/// The few POSIX file operations of a resumable download, each failing with `fileCantWrite` and the errno.
enum OSSDownloadTempFileIO {
    /// Creates (or truncates) the temporary file at `path` and gives it `length` bytes (sparse), after checking
    /// that the file system has room for them.
    static func prepare(path: String, length: Int64) throws {
        // Checked before the file exists: a download that cannot fit leaves nothing behind.
        if length > 0, let available = availableBytes(path: path), available < UInt64(length) {
            throw failure("not enough space for \(length) bytes beside the destination (\(available) available)", ENOSPC)
        }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure("cannot create the temporary file \(path)", errno) }
        defer { _ = close(fd) }
        guard ftruncate(fd, off_t(length)) == 0 else {
            throw failure("cannot size the temporary file \(path) to \(length) bytes", errno)
        }
    }

    /// The bytes the volume holding `path` (a file to create) can take: on iOS, macOS and visionOS its capacity for
    /// important usage (what the system would free for the app, purgeable caches included: a download the user asked
    /// for is important), elsewhere `f_bavail × f_frsize`; `nil` when unknown. Declared in the privacy manifest
    /// (disk space, reason E174.1: the check refuses a download that cannot fit).
    static func availableBytes(path: String) -> UInt64? {
        let directory = OSSDurableFile.parentDirectory(of: path)
        #if os(iOS) || os(macOS) || os(visionOS)
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        if let values = try? url.resourceValues(forKeys: [.volumeAvailableCapacityForImportantUsageKey]),
            let capacity = values.volumeAvailableCapacityForImportantUsage, capacity >= 0
        {
            return UInt64(capacity)
        }
        #endif
        var fs = statvfs()
        guard statvfs(directory, &fs) == 0 else { return nil }
        let (available, overflow) = UInt64(fs.f_bavail).multipliedReportingOverflow(by: UInt64(fs.f_frsize))
        return overflow ? nil : available
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
        OSSClientError.file(writing: true, message, errno: code)
    }
}
