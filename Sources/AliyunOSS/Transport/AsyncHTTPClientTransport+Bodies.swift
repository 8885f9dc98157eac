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
