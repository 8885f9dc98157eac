#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OSSResumable
import _NIOFileSystem

/// Writes a file atomically and durably: into a temporary file next to the destination, synced with
/// ``OSSDurableFile/sync(fd:)`` (`F_FULLFSYNC` on Darwin), renamed over the destination, and the destination's
/// directory synced (``OSSDurableFile/rename(_:to:)``). None of it runs on the cooperative pool.
enum OSSAtomicFile {
    static func write<Result: Sendable>(
        to destination: String, _ body: (WriteFileHandle) async throws -> Result
    ) async throws -> Result {
        let temporary = destination + ".osstmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        do {
            // withFileHandle closes the file even if the task is cancelled.
            let result = try await FileSystem.shared.withFileHandle(
                forWritingAt: FilePath(temporary),
                options: OpenOptions.Write(existingFile: .truncate, newFile: .init(transactionalCreation: false))
            ) { handle in
                let result = try await body(handle)
                try await handle.synchronizeDurably(path: temporary)
                return result
            }
            do {
                try await OSSBlockingIO.run { () throws(OSSResumableError) in
                    try OSSDurableFile.rename(temporary, to: destination)
                }
            } catch {
                throw OSSClientError(.fileCantWrite, "cannot rename \(temporary) to \(destination): \(error)", underlying: error)
            }
            return result
        } catch {
            unlink(temporary)
            throw OSSTransportErrorMapper.mapFileWrite(error, path: temporary)
        }
    }
}

extension WriteFileHandle {
    /// Syncs the file with ``OSSDurableFile/sync(fd:)`` (`F_FULLFSYNC` on Darwin, `fsync` elsewhere) on NIO's
    /// thread pool, where NIO's own `synchronize()` is a plain `fsync`.
    ///
    /// - Throws: ``OSSClientError`` `fileCantWrite` naming `path`.
    func synchronizeDurably(path: String) async throws {
        let code: Int32?
        do {
            code = try await withUnsafeDescriptor { descriptor in OSSDurableFile.sync(fd: descriptor.rawValue) }
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot flush \(path)", underlying: error)
        }
        if let code {
            throw OSSClientError(.fileCantWrite, "cannot flush \(path) (errno \(code))")
        }
    }
}
