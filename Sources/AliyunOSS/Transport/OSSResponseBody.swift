#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
#endif
import NIOCore
import OSSCRC64
import _NIOFileSystem

/// A streamed response body: an `AsyncSequence` of `ByteBuffer` chunks, read once.
///
/// Transport failures while reading surface as ``OSSClientError`` with code `.networkError`.
///
/// Any transport can feed it: from buffers in memory, from an `AsyncThrowingStream`, or from a pull closure
/// that returns the next chunk (``init(next:)``).
public struct OSSResponseBody: AsyncSequence, Sendable {
    public typealias Element = ByteBuffer

    enum Source: Sendable {
        #if canImport(AsyncHTTPClient)
        case client(HTTPClientResponse.Body)
        #endif
        case buffers([ByteBuffer])
        case stream(AsyncThrowingStream<ByteBuffer, any Error>)
        case pull(@Sendable () async throws -> ByteBuffer?)
    }

    let source: Source

    init(_ source: Source) {
        self.source = source
    }

    /// A body made of the given chunks (for custom transports and tests).
    public init(buffers: [ByteBuffer]) {
        source = .buffers(buffers)
    }

    /// A body read from a stream, for transports that push chunks as they arrive.
    public init(stream: AsyncThrowingStream<ByteBuffer, any Error>) {
        source = .stream(stream)
    }

    /// A body read by calling `next` until it returns `nil`, for transports that hand out chunks on demand (and so
    /// can apply backpressure). `next` is called from one task at a time.
    public init(next: @escaping @Sendable () async throws -> ByteBuffer?) {
        source = .pull(next)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        enum State {
            #if canImport(AsyncHTTPClient)
            case client(HTTPClientResponse.Body.AsyncIterator)
            #endif
            case buffers(IndexingIterator<[ByteBuffer]>)
            case stream(AsyncThrowingStream<ByteBuffer, any Error>.Iterator)
            case pull(@Sendable () async throws -> ByteBuffer?)
        }

        var state: State

        public mutating func next() async throws -> ByteBuffer? {
            do {
                switch state {
                case .buffers(var iterator):
                    let value = iterator.next()
                    state = .buffers(iterator)
                    return value
                #if canImport(AsyncHTTPClient)
                case .client(var iterator):
                    let value = try await iterator.next()
                    state = .client(iterator)
                    return value
                #endif
                case .stream(var iterator):
                    let value = try await iterator.next()
                    state = .stream(iterator)
                    return value
                case .pull(let next):
                    return try await next()
                }
            } catch {
                throw OSSTransportErrorMapper.map(error)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        #if canImport(AsyncHTTPClient)
        case .client(let body): AsyncIterator(state: .client(body.makeAsyncIterator()))
        #endif
        case .buffers(let buffers): AsyncIterator(state: .buffers(buffers.makeIterator()))
        case .stream(let stream): AsyncIterator(state: .stream(stream.makeAsyncIterator()))
        case .pull(let next): AsyncIterator(state: .pull(next))
        }
    }

    /// Collects the whole body, failing with `.invalidArgument` if it is longer than `maxBytes`.
    public func collect(upTo maxBytes: Int) async throws -> ByteBuffer {
        var result = ByteBuffer()
        for try await chunk in self {
            guard result.readableBytes + chunk.readableBytes <= maxBytes else {
                throw OSSClientError(.invalidArgument, "the response body is larger than the limit of \(maxBytes) bytes")
            }
            var chunk = chunk
            result.writeBuffer(&chunk)
        }
        return result
    }

    /// Collects the whole body as bytes, failing with `.invalidArgument` if it is longer than `maxBytes`.
    public func collectBytes(upTo maxBytes: Int) async throws -> [UInt8] {
        let buffer = try await collect(upTo: maxBytes)
        return Array(buffer.readableBytesView)
    }

    /// Reads and discards the rest of the body.
    public func drain() async throws {
        for try await _ in self {}
    }

    /// Streams the body into an open file handle at `offset` and onwards, chunk by chunk.
    ///
    /// - Returns: the number of bytes written and their CRC-64.
    func write(
        to handle: some WritableFileHandleProtocol, at offset: Int64,
        onChunk: ((Int64) -> Void)? = nil
    ) async throws -> (bytes: Int64, crc64: UInt64) {
        var position = offset
        var crc = CRC64()
        for try await chunk in self {
            chunk.withUnsafeReadableBytes { crc.update($0) }
            do {
                try await handle.write(contentsOf: chunk, toAbsoluteOffset: position)
            } catch {
                throw OSSClientError(.fileCantWrite, "cannot write to the destination file", underlying: error)
            }
            position += Int64(chunk.readableBytes)
            onChunk?(Int64(chunk.readableBytes))
        }
        return (position - offset, crc.value)
    }

    /// Streams the body into the file at `path`, starting at `offset` (the file is created if needed and not
    /// truncated), so a ranged download can fill its part of a larger file.
    ///
    /// - Returns: the number of bytes written and their CRC-64.
    public func write(toFileAt path: String, offset: Int64, onChunk: ((Int64) -> Void)? = nil) async throws -> (
        bytes: Int64, crc64: UInt64
    ) {
        do {
            return try await FileSystem.shared.withFileHandle(
                forWritingAt: FilePath(path), options: .modifyFile(createIfNecessary: true)
            ) { handle in
                try await write(to: handle, at: offset, onChunk: onChunk)
            }
        } catch let error as OSSClientError {
            throw error
        } catch {
            throw OSSTransportErrorMapper.mapFileWrite(error, path: path)
        }
    }
}
