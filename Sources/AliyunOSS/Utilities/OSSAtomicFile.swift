#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import OSSResumable

/// Writes a file atomically and durably: into a temporary file next to the destination (``OSSTemporaryFileName``,
/// shortened when the destination's name is too long to take the suffix), synced with
/// ``OSSDurableFile/sync(fd:)`` (`F_FULLFSYNC` on Darwin), renamed over the destination, and the destination's
/// directory synced (``OSSDurableFile/rename(_:to:)``). None of it runs on the cooperative pool.
enum OSSAtomicFile {
    static func write<Result: Sendable>(
        to destination: String, _ body: (OSSFile) async throws -> Result
    ) async throws -> Result {
        let temporary = OSSTemporaryFileName.randomPath(beside: destination)
        do {
            let result = try await OSSFile.withFile(temporary, .replace) { file in
                let result = try await body(file)
                try await file.sync()
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
