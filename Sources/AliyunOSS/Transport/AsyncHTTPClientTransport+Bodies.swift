#if OSS_ASYNC_HTTP_CLIENT
import Foundation
import NIOCore
import NIOFoundationCompat
import AsyncHTTPClient

/// The request and response body adapters between the SDK's `Data` chunks and AsyncHTTPClient's `ByteBuffer`s.
extension AsyncHTTPClientTransport {
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

    /// Adapts an ``OSSBodyStream`` to `AsyncSequence` (each chunk copied once into a `ByteBuffer`).
    struct StreamSequence: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let stream: OSSBodyStream

        struct AsyncIterator: AsyncIteratorProtocol {
            let stream: OSSBodyStream
            mutating func next() async throws -> ByteBuffer? {
                try await stream.next().map { ByteBuffer(data: $0) }
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: stream) }
    }

    /// A file range as buffers of at most `chunkLength` bytes, each read when the transport asks for it (with
    /// `pread`, off the cooperative pool) into one of two buffers that take turns: the one on its way to the socket
    /// and the next. No read-ahead beyond that and no allocation per chunk (fresh buffers cost a page fault per
    /// 4 KiB); a buffer the transport still holds when its turn comes is replaced, never overwritten (`ByteBuffer`
    /// copies on write). The two come from `spares` and go back there at the end of the range, for the next
    /// request. A file shorter than the range is `fileCantRead`.
    struct FileRangeChunks: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let file: OSSFile
        let range: Range<Int64>
        let chunkLength: Int
        var spares: SpareBuffers = SpareBuffers()

        /// Buffers kept between requests (at most ``limit``; any request may take them).
        struct SpareBuffers: Sendable {
            static let limit = 8
            let buffers = OSSLockedValue<[ByteBuffer]>([])

            func take(capacity: Int) -> ByteBuffer {
                buffers.withLockedValue { $0.popLast() }.flatMap { $0.capacity >= capacity ? $0 : nil }
                    ?? ByteBufferAllocator().buffer(capacity: capacity)
            }

            func give(_ returned: [ByteBuffer]) {
                buffers.withLockedValue { $0 = Array(($0 + returned).suffix(Self.limit)) }
            }
        }

        /// The two buffers, behind a lock only so that the read (on another thread) mutates them in place.
        struct Turns {
            var buffers: [ByteBuffer]
            var next = 0

            /// Reads `count` bytes at `offset` into the buffer whose turn it is; returns it (sharing its storage).
            mutating func fill(from file: OSSFile, at offset: Int64, count: Int) throws -> ByteBuffer {
                defer { next = 1 - next }
                buffers[next].clear()
                try buffers[next].writeWithUnsafeMutableBytes(minimumWritableBytes: count) { space in
                    try file.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: space[..<count]))
                }
                return buffers[next]
            }
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            let chunks: FileRangeChunks
            var position: Int64
            let turns: OSSLockedValue<Turns>

            mutating func next() async throws -> ByteBuffer? {
                let end = chunks.range.upperBound
                guard position < end else {
                    chunks.spares.give(turns.withLockedValue { turns in
                        defer { turns.buffers = [] }
                        return turns.buffers
                    })
                    return nil
                }
                let (file, offset) = (chunks.file, position)
                let count = Int(Swift.min(Int64(chunks.chunkLength), end - position))
                let turns = self.turns
                let chunk = try await OSSBlockingIO.run {
                    try turns.withLockedValue { try $0.fill(from: file, at: offset, count: count) }
                }
                guard chunk.readableBytes == count else {
                    throw OSSClientError(
                        .fileCantRead,
                        "\(file.path) ended after \(offset + Int64(chunk.readableBytes) - chunks.range.lowerBound) of \(chunks.range.count) bytes")
                }
                position += Int64(count)
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator {
            let capacity = Int(Swift.min(Int64(chunkLength), Int64(range.count)))
            let buffers = [spares.take(capacity: capacity), spares.take(capacity: capacity)]
            return AsyncIterator(chunks: self, position: range.lowerBound, turns: OSSLockedValue(Turns(buffers: buffers)))
        }
    }

    /// Shows every chunk that passes through to `onChunk`.
    struct CountingSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
        typealias Element = ByteBuffer
        let base: Base
        let onChunk: (@Sendable (UnsafeRawBufferPointer) -> Void)?

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: Base.AsyncIterator
            let onChunk: (@Sendable (UnsafeRawBufferPointer) -> Void)?
            mutating func next() async throws -> ByteBuffer? {
                guard let chunk = try await base.next() else { return nil }
                if let onChunk { chunk.withUnsafeReadableBytes { onChunk($0) } }
                return chunk
            }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), onChunk: onChunk) }
    }

    /// A response body as `Data` chunks that share the received buffers' storage (no copy).
    static func responseBody(_ body: HTTPClientResponse.Body) -> OSSResponseBody {
        OSSResponseBody(
            .iterate({
                var iterator = body.makeAsyncIterator()
                return {
                    guard let buffer = try await iterator.next() else { return nil }
                    return buffer.getData(
                        at: buffer.readerIndex, length: buffer.readableBytes, byteTransferStrategy: .noCopy)
                }
            }))
    }
}
#endif
