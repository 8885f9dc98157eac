#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import _NIOFileSystem

/// Writes a file atomically: into a temporary file next to the destination, fsync, then `rename(2)` over it.
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
                do {
                    try await handle.synchronize()
                } catch {
                    throw OSSClientError(.fileCantWrite, "cannot flush \(temporary)", underlying: error)
                }
                return result
            }
            guard rename(temporary, destination) == 0 else {
                throw OSSClientError(.fileCantWrite, "cannot rename \(temporary) to \(destination) (errno \(errno))")
            }
            return result
        } catch {
            unlink(temporary)
            throw OSSTransportErrorMapper.mapFileWrite(error, path: temporary)
        }
    }
}
