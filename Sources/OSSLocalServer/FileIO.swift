import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

import Foundation

/// Small POSIX file helpers: atomic writes (temp + fsync + rename), whole-file reads, hard links.
enum FileIO {
    struct Failure: Error, CustomStringConvertible {
        var operation: String
        var path: String
        var errno: Int32
        var description: String { "\(operation) \(path) failed: errno \(errno)" }
    }

    static func makeDirectory(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Names of the entries in a directory (empty if it does not exist).
    static func list(_ path: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    }

    static func read(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    static func rename(_ from: String, _ to: String) throws {
        if posixRename(from, to) != 0 { throw Failure(operation: "rename", path: to, errno: errno) }
    }

    /// Makes `to` a second name (hard link) of the file at `from`.
    static func link(_ from: String, _ to: String) throws {
        if posixLink(from, to) != 0 { throw Failure(operation: "link", path: to, errno: errno) }
    }

    /// Creates a new file exclusively for writing.
    static func create(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 { throw Failure(operation: "open", path: path, errno: errno) }
        return fd
    }

    /// Writes every byte of `buffer`.
    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(operation: "write", path: path, errno: errno)
            }
            offset += n
        }
    }

    static func sync(_ fd: Int32, path: String) throws {
        if fsync(fd) != 0 { throw Failure(operation: "fsync", path: path, errno: errno) }
    }

    /// Writes `data` to `path` atomically: a temporary file in `tempDirectory`, fsync, then rename.
    static func writeAtomically(_ data: Data, to path: String, tempDirectory: String) throws {
        let temp = tempDirectory + "/" + RequestID.make() + ".meta"
        let fd = try create(temp)
        do {
            try data.withUnsafeBytes { try writeAll(fd, $0, path: temp) }
            try sync(fd, path: temp)
            close(fd)
        } catch {
            close(fd)
            remove(temp)
            throw error
        }
        do { try rename(temp, path) } catch {
            remove(temp)
            throw error
        }
    }
}

private func posixRename(_ from: String, _ to: String) -> Int32 {
    rename(from, to)
}

private func posixLink(_ from: String, _ to: String) -> Int32 {
    link(from, to)
}

private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}

/// Where the local server does its blocking file work, away from Swift's cooperative thread pool.
///
/// A slow `fsync` (a busy disk can take seconds) must not stall the cooperative pool: the server's connection
/// handlers, and in tests the SDK clients in the same process, run there, and on a 2-core machine the pool has 2
/// threads. Process-wide and started on first use, like NIO's own singletons.
enum ServerIO {
    /// Body writes, fsyncs and part concatenation. Separate from `NIOThreadPool.singleton`, which NIOFileSystem
    /// (and so the SDK's file reads in the same process) uses.
    static let blockingPool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    /// The threads the metadata stores (``ObjectStore`` actors) run on: their atomic JSON writes fsync. Each store
    /// stays on one loop; several loops keep many servers in one process (a test run starts hundreds) from queueing
    /// behind each other's fsyncs, which are waits on the disk, not CPU work.
    static let storeLoops = MultiThreadedEventLoopGroup(numberOfThreads: 8)
}
