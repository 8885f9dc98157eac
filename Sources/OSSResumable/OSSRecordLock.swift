/// The exclusive lock of one transfer: an advisory `flock` on a `.lock` file next to its record, held by exactly
/// one owner — this object — from ``acquire(path:)`` until it is deallocated.
///
/// Taking it never waits: when another process, or another request in this process, holds it, ``acquire(path:)``
/// throws `recordLocked` at once (each acquire opens the file anew, and `flock` locks belong to the open file,
/// so two handles in one process exclude each other too). The kernel drops the lock with the last descriptor, so
/// a lock left by a killed process is simply taken by the next acquirer.
///
/// The lock file is removed on release, by its holder, through this one path. The protocol that makes removing
/// it safe (no two holders at once, ever):
/// 1. the file at `path` is only ever unlinked by the holder of the lock on that very file, while holding it
///    (``deinit``: check that `path` still names the locked file, unlink, then close);
/// 2. an acquirer that got the lock checks that `path` still names the file it locked, and otherwise starts
///    again with the file that is there now.
/// Suppose A holds the lock on file X with `path` → X checked after locking. `path` can stop naming X only by an
/// unlink by X's holder (A, who has not released it) — so while A holds X, `path` names X, and any other acquirer
/// either fails on X's lock or locks a file that `path` does not name, which rule 2 refuses. Nothing else in the
/// SDK removes lock files (the record directory and the sweeper leave them to this type).
package final class OSSRecordLock: Sendable {
    /// The lock file.
    package let path: String
    private let fd: Int32
    private let identity: FileID

    private struct FileID: Sendable, Equatable {
        let device: UInt64
        let inode: UInt64
    }

    private init(path: String, fd: Int32, identity: FileID) {
        self.path = path
        self.fd = fd
        self.identity = identity
    }

    /// Takes the lock at `path`, creating the file if needed.
    ///
    /// - Throws: `recordLocked` when it is held elsewhere (in this process or another); `fileCantWrite` when the
    ///   lock file cannot be created or locked.
    package static func acquire(path: String) throws(OSSResumableError) -> OSSRecordLock {
        // Each retry means the holder released and removed the file between our open and our flock: a live
        // competitor, never a loop without progress.
        for _ in 0..<64 {
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
            if case .success(let held) = POSIXFile.status(fd: fd), case .success(let current) = POSIXFile.status(path: path),
                held.inode == current.inode, held.device == current.device
            {
                return OSSRecordLock(path: path, fd: fd, identity: FileID(device: held.device, inode: held.inode))
            }
            POSIXFile.close(fd)
        }
        throw .recordLocked(path: path)
    }

    deinit {
        // The one release path: remove the file while still holding its lock (only if `path` still names it),
        // then release the lock by closing the descriptor.
        if case .success(let current) = POSIXFile.status(path: path),
            FileID(device: current.device, inode: current.inode) == identity
        {
            _ = POSIXFile.remove(path)
        }
        POSIXFile.close(fd)
    }
}
