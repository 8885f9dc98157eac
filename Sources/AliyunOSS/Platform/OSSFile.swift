#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

/// An open file for the SDK's streamed file I/O: request bodies read from a file range, response bodies written
/// into a destination or a download's temporary file, digests. POSIX `pread`/`pwrite` on every platform, each call
/// run off Swift's cooperative pool (``OSSBlockingIO``), so a slow disk never holds one of its few threads.
///
/// The descriptor is closed only once no call is using it: a part still writing when the file is closed finishes
/// its write first, and a call after ``close()`` fails; a descriptor number is never used after it was released
/// (it could name another file by then).
///
/// Failures are ``OSSClientError`` `fileCantRead` / `fileCantWrite` naming the path and the `errno`; a full volume
/// is `fileCantWrite` with `ENOSPC` in ``OSSClientError/posixErrorCode``.
///
/// Open files with ``withFile(_:_:_:)``, which closes them on every path out, cancellation included.
final class OSSFile: Sendable {
    enum Mode: Sendable {
        /// An existing file, read only.
        case read
        /// An existing file (or a new one with `create`), written in place: never truncated.
        case update(create: Bool)
        /// A new file, or an existing one emptied.
        case replace
    }

    private struct Descriptor {
        let fd: Int32
        var users = 0
        var closing = false
        var closed = false
    }

    let path: String
    let mode: Mode
    private let descriptor: OSSLockedValue<Descriptor>

    /// The largest single `pread`/`pwrite` (some systems refuse counts above 2 GiB).
    private static let maxTransfer = 1 << 30

    private init(path: String, mode: Mode, fd: Int32) {
        self.path = path
        self.mode = mode
        descriptor = OSSLockedValue(Descriptor(fd: fd))
    }

    deinit {
        close()
    }

    /// Opens `path`, runs `body` with it and closes it, also when `body` throws or the task is cancelled.
    static func withFile<Result: Sendable>(
        _ path: String, _ mode: Mode, _ body: (OSSFile) async throws -> Result
    ) async throws -> Result {
        let file = try await open(path, mode)
        let result: Result
        do {
            result = try await body(file)
        } catch {
            file.close()
            throw error
        }
        if let code = file.close(), mode.writes {
            throw failure(mode, "cannot close \(path)", code)
        }
        return result
    }

    /// Opens `path`; the caller should ``close()`` it (the descriptor is closed when the last reference goes).
    static func open(_ path: String, _ mode: Mode) async throws -> OSSFile {
        let flags: Int32 =
            switch mode {
            case .read: O_RDONLY
            case .update(let create): O_WRONLY | (create ? O_CREAT : 0)
            case .replace: O_WRONLY | O_CREAT | O_TRUNC
            }
        let result: (Int32, Int32) = await OSSBlockingIO.run {
            let fd = Self.systemOpen(path, flags | O_CLOEXEC)
            return (fd, fd < 0 ? errno : 0)
        }
        guard result.0 >= 0 else { throw failure(mode, "cannot open \(path)", result.1) }
        return OSSFile(path: path, mode: mode, fd: result.0)
    }

    /// Closes the file: at once, or when the last call using it returns. Returns the `errno` of a failed close (a
    /// write-back error may surface there); later calls on the file fail.
    @discardableResult
    func close() -> Int32? {
        let fd: Int32? = descriptor.withLockedValue { state in
            guard !state.closing else { return nil }
            state.closing = true
            guard state.users == 0 else { return nil }
            state.closed = true
            return state.fd
        }
        return fd.flatMap(Self.systemClose)
    }

    /// Whether ``close()`` was called.
    var isClosed: Bool {
        descriptor.withLockedValue { $0.closing }
    }

    /// Runs `body` with the descriptor, which stays open until `body` returns.
    private func withDescriptor<T>(_ body: (Int32) -> T) throws(OSSClientError) -> T {
        let fd: Int32? = descriptor.withLockedValue { state in
            guard !state.closing else { return nil }
            state.users += 1
            return state.fd
        }
        guard let fd else { throw Self.failure(mode, "\(path) was closed", EBADF) }
        defer {
            let release: Int32? = descriptor.withLockedValue { state in
                state.users -= 1
                guard state.closing, state.users == 0, !state.closed else { return nil }
                state.closed = true
                return state.fd
            }
            if let release { _ = Self.systemClose(release) }
        }
        return body(fd)
    }

    /// The file's size now.
    func size() throws -> Int64 {
        var status = stat()
        let code = try withDescriptor { fstat($0, &status) == 0 ? 0 : errno }
        guard code == 0 else { throw Self.failure(.read, "cannot read the size of \(path)", code) }
        return Int64(status.st_size)
    }

    /// The file's size and modification time now (`fstat`), to tell whether it changed between two moments.
    func stamp() throws -> OSSFileStamp {
        var status = stat()
        let code = try withDescriptor { fstat($0, &status) == 0 ? 0 : errno }
        guard code == 0 else { throw Self.failure(.read, "cannot inspect \(path)", code) }
        return OSSFileStamp(size: Int64(status.st_size), modificationNanoseconds: OSSDirectoryWalker.modificationNanoseconds(status))
    }

    /// Reads up to `count` bytes at `offset`; fewer only at the end of the file. A cancelled task reads nothing
    /// (`CancellationError`).
    func read(at offset: Int64, count: Int) async throws -> Data {
        try Task.checkCancellation()
        return try await OSSBlockingIO.run { () throws(OSSClientError) -> Data in
            var data = Data(count: count)
            let filled = try data.withUnsafeMutableBytes { buffer in
                Result { () throws(OSSClientError) in try self.read(at: offset, into: buffer) }
            }.get()
            if filled < count { data.removeSubrange(filled...) }
            return data
        }
    }

    /// Fills `buffer` from `offset` with `pread`, blocking (run it off the cooperative pool: ``OSSBlockingIO``).
    /// Returns the bytes read: fewer than the buffer holds only at the end of the file.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws(OSSClientError) -> Int {
        var filled = 0
        let code: Int32 = try withDescriptor { fd in
            while filled < buffer.count {
                let want = Swift.min(buffer.count - filled, Self.maxTransfer)
                let got = pread(fd, buffer.baseAddress! + filled, want, off_t(offset + Int64(filled)))
                if got > 0 {
                    filled += got
                } else if got == 0 {
                    return 0
                } else if errno != EINTR {
                    return errno
                }
            }
            return 0
        }
        guard code == 0 else { throw Self.failure(.read, "cannot read \(path)", code) }
        return filled
    }

    /// Writes all of `data` at `offset`. A cancelled task writes nothing (`CancellationError`): a transfer that is
    /// paused or cancelled stops at the next chunk, also when the transport has the rest of the body buffered.
    /// `evenWhenCancelled` writes anyway (a journal's own entries about a pause must land).
    func write(_ data: Data, at offset: Int64, evenWhenCancelled: Bool = false) async throws {
        try await write(CollectionOfOne(data), at: offset, evenWhenCancelled: evenWhenCancelled)
    }

    /// Writes `chunks` one after the other from `offset`, in one trip off the cooperative pool (a batch of chunks
    /// costs one thread hop, not one each). Cancellation as ``write(_:at:evenWhenCancelled:)``.
    func write(
        _ chunks: some Collection<Data> & Sendable, at offset: Int64, evenWhenCancelled: Bool = false
    ) async throws {
        if !evenWhenCancelled { try Task.checkCancellation() }
        let total = chunks.reduce(0) { $0 + $1.count }
        guard total > 0 else { return }
        let code = try await OSSBlockingIO.run { () throws(OSSClientError) -> Int32 in
            try self.withDescriptor { fd in
                var position = offset
                for chunk in chunks {
                    let code = chunk.withUnsafeBytes { Self.writeAll(fd, $0, at: position) }
                    guard code == 0 else { return code }
                    position += Int64(chunk.count)
                }
                return 0
            }
        }
        guard code == 0 else { throw Self.failure(.replace, "cannot write \(total) bytes to \(path) at \(offset)", code) }
    }

    /// `pwrite` until all of `buffer` is written at `offset`; the `errno` of a failure, or 0.
    private static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64) -> Int32 {
        var done = 0
        while done < buffer.count {
            let want = Swift.min(buffer.count - done, maxTransfer)
            let wrote = pwrite(fd, buffer.baseAddress! + done, want, off_t(offset + Int64(done)))
            if wrote >= 0 {
                done += wrote
            } else if errno != EINTR {
                return errno
            }
        }
        return 0
    }

    /// Makes the file's data durable (``OSSDurableFile/sync(fd:)``: `F_FULLFSYNC` on Darwin).
    func sync() async throws {
        let code = try await OSSBlockingIO.run { () throws(OSSClientError) -> Int32? in
            try self.withDescriptor { OSSDurableFile.sync(fd: $0) }
        }
        if let code {
            throw Self.failure(.replace, "cannot flush \(path)", code)
        }
    }

    /// Starts the kernel's writeback of a range now (advisory; see ``OSSDurableFile/startWriteback(fd:offset:length:)``).
    func startWriteback(offset: Int64, length: Int64) async {
        await OSSBlockingIO.run {
            _ = try? self.withDescriptor { OSSDurableFile.startWriteback(fd: $0, offset: offset, length: length) }
        }
    }

    /// Streams `range` of the file in chunks of at most `chunkLength` bytes; a file shorter than the range is
    /// `fileCantRead`.
    func forEachChunk(in range: Range<Int64>, chunkLength: Int, _ body: (Data) async throws -> Void) async throws {
        var position = range.lowerBound
        while position < range.upperBound {
            let chunk = try await read(at: position, count: Int(Swift.min(Int64(chunkLength), range.upperBound - position)))
            guard !chunk.isEmpty else {
                throw OSSClientError(
                    .fileCantRead, "\(path) ended after \(position - range.lowerBound) of \(range.count) bytes")
            }
            try await body(chunk)
            position += Int64(chunk.count)
        }
    }

    private static func systemOpen(_ path: String, _ flags: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.open(path, flags, 0o666)
        #elseif canImport(Musl)
        Musl.open(path, flags, 0o666)
        #else
        Darwin.open(path, flags, 0o666)
        #endif
    }

    private static func systemClose(_ fd: Int32) -> Int32? {
        #if canImport(Glibc)
        Glibc.close(fd) == 0 ? nil : errno
        #elseif canImport(Musl)
        Musl.close(fd) == 0 ? nil : errno
        #else
        Darwin.close(fd) == 0 ? nil : errno
        #endif
    }

    static func failure(_ mode: Mode, _ message: String, _ code: Int32) -> OSSClientError {
        OSSClientError.file(writing: mode.writes, message, errno: code)
    }
}

extension OSSFile.Mode {
    var writes: Bool {
        if case .read = self { return false }
        return true
    }
}
