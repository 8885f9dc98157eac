import NIOCore

/// Yields a buffer in slices, so upload progress is reported while an in-memory body is sent.
struct ChunkedBuffer: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let buffer: ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
        var buffer: ByteBuffer
        mutating func next() async throws -> ByteBuffer? {
            guard buffer.readableBytes > 0 else { return nil }
            return buffer.readSlice(length: Swift.min(buffer.readableBytes, 64 * 1024))
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(buffer: buffer) }
}

/// Adapts an ``OSSBodyStream`` to `AsyncSequence`.
struct StreamSequence: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let stream: OSSBodyStream

    struct AsyncIterator: AsyncIteratorProtocol {
        let stream: OSSBodyStream
        mutating func next() async throws -> ByteBuffer? { try await stream.next() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: stream) }
}

/// Reports the size of every chunk that passes through.
struct CountingSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    let onChunk: @Sendable (ByteBuffer) -> Void

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let onChunk: @Sendable (ByteBuffer) -> Void
        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            onChunk(chunk)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), onChunk: onChunk) }
}
