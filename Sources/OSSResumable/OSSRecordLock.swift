/// An exclusive advisory lock (`flock`) on a `.lock` file next to a record, held for the lifetime of this object.
///
/// Taking it never blocks: when another process (or another handle in this process) holds it, ``acquire(path:)``
/// throws `recordLocked`. The lock goes away when this object is released, or when the process dies (the kernel
/// drops `flock` locks with the last descriptor), so a crashed upload never leaves a stale lock behind.
///
/// The lock file is removed on release. Taking the lock checks that the locked descriptor is still the file at
/// `path` (and retries otherwise), so removing it cannot let two holders in at once.
public final class OSSRecordLock: Sendable {
    /// The lock file.
    public let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    /// Takes the lock at `path`, creating the file if needed.
    public static func acquire(path: String) throws(OSSResumableError) -> OSSRecordLock {
        for _ in 0..<8 {
            let fd: Int32
            switch POSIXFile.openLockFile(path) {
            case .success(let opened): fd = opened
            case .failure(let code): throw .fileCantWrite(path: path, errno: code.value)
            }
            if let code = POSIXFile.tryLockExclusive(fd: fd) {
                POSIXFile.close(fd)
                if code == POSIXFile.wouldBlock { throw .recordLocked(path: path) }
                throw .fileCantWrite(path: path, errno: code)
            }
            // The previous holder may have removed the file between our open and our flock: then we locked an
            // orphan and must try again with the file that is at `path` now.
            if case .success(let held) = POSIXFile.status(fd: fd), case .success(let current) = POSIXFile.status(path: path),
                held.inode == current.inode, held.device == current.device
            {
                return OSSRecordLock(path: path, fd: fd)
            }
            POSIXFile.close(fd)
        }
        throw .recordLocked(path: path)
    }

    deinit {
        // Remove while still holding the lock, then release it.
        _ = POSIXFile.remove(path)
        POSIXFile.close(fd)
    }
}
