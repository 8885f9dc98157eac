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
    static func write<Result>(
        to destination: String, _ body: (WriteFileHandle) async throws -> Result
    ) async throws -> Result {
        let temporary = destination + ".osstmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let handle: WriteFileHandle
        do {
            handle = try await FileSystem.shared.openFile(
                forWritingAt: FilePath(temporary),
                options: OpenOptions.Write(existingFile: .truncate, newFile: .init(transactionalCreation: false)))
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot create \(temporary)", underlying: error)
        }
        do {
            let result = try await body(handle)
            do {
                try await handle.synchronize()
                try await handle.close()
            } catch {
                throw OSSClientError(.fileCantWrite, "cannot flush \(temporary)", underlying: error)
            }
            guard rename(temporary, destination) == 0 else {
                throw OSSClientError(.fileCantWrite, "cannot rename \(temporary) to \(destination) (errno \(errno))")
            }
            return result
        } catch {
            try? await handle.close()
            _ = try? await FileSystem.shared.removeItem(at: FilePath(temporary))
            throw error
        }
    }
}
