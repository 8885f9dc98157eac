#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSCRC64

/// A streamed response body: an `AsyncSequence` of `Data` chunks, read once.
///
/// Transport failures while reading surface as ``OSSClientError`` with code `.networkError`.
///
/// Any transport can feed it: from chunks in memory, from an `AsyncThrowingStream`, or from a pull closure that
/// returns the next chunk (``init(next:)``).
public struct OSSResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data

    enum Source: Sendable {
        case chunks([Data])
        case stream(AsyncThrowingStream<Data, any Error>)
        case pull(@Sendable () async throws -> Data?)
        /// A transport's own chunk sequence: each iteration makes a fresh pull closure over its iterator.
        case iterate(@Sendable () -> () async throws -> Data?)
        /// A buffered hand-over (an ``OSSByteChannel``): the next chunk and, behind it, those already queued that fit
        /// in the given byte count (0: the next chunk alone).
        case batches(@Sendable (_ maxBytes: Int) async throws -> [Data]?)
    }

    let source: Source

    init(_ source: Source) {
        self.source = source
    }

    /// A body made of the given chunks (for custom transports and tests).
    public init(chunks: [Data]) {
        source = .chunks(chunks)
    }

    /// A body read from a stream, for transports that push chunks as they arrive.
    public init(stream: AsyncThrowingStream<Data, any Error>) {
        source = .stream(stream)
    }

    /// A body read by calling `next` until it returns `nil`, for transports that hand out chunks on demand (and so
    /// can apply backpressure). `next` is called from one task at a time.
    public init(next: @escaping @Sendable () async throws -> Data?) {
        source = .pull(next)
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        enum State {
            case chunks(IndexingIterator<[Data]>)
            case stream(AsyncThrowingStream<Data, any Error>.Iterator)
            case pull(@Sendable () async throws -> Data?)
            case iterate(() async throws -> Data?)
            case batches(@Sendable (Int) async throws -> [Data]?)
        }

        var state: State

        public mutating func next() async throws -> Data? {
            do {
                switch state {
                case .chunks(var iterator):
                    let value = iterator.next()
                    state = .chunks(iterator)
                    return value
                case .stream(var iterator):
                    let value = try await iterator.next()
                    state = .stream(iterator)
                    return value
                case .pull(let next):
                    return try await next()
                case .iterate(let next):
                    return try await next()
                case .batches(let next):
                    return try await next(0)?.first
                }
            } catch {
                throw OSSTransportErrorMapper.map(error)
            }
        }

        /// The next chunk and, from a buffered body, the chunks that arrived behind it already, as many as fit in
        /// `maxBytes` with it (a writer that handles them in one go pays one hand-over and one system call for
        /// them); from any other body the next chunk alone. Nil at the end.
        mutating func nextBatch(upTo maxBytes: Int) async throws -> [Data]? {
            guard case .batches(let next) = state else { return try await self.next().map { [$0] } }
            do {
                return try await next(maxBytes)
            } catch {
                throw OSSTransportErrorMapper.map(error)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .chunks(let chunks): AsyncIterator(state: .chunks(chunks.makeIterator()))
        case .stream(let stream): AsyncIterator(state: .stream(stream.makeAsyncIterator()))
        case .pull(let next): AsyncIterator(state: .pull(next))
        case .iterate(let makeNext): AsyncIterator(state: .iterate(makeNext()))
        case .batches(let next): AsyncIterator(state: .batches(next))
        }
    }

    /// The same body, telling `observe` the size of each chunk as its reader takes it (for the pipeline's
    /// observers); nothing is buffered.
    func counting(_ observe: @escaping @Sendable (Int) -> Void) -> OSSResponseBody {
        @Sendable func counted(_ next: @escaping () async throws -> Data?) -> () async throws -> Data? {
            {
                let chunk = try await next()
                if let chunk { observe(chunk.count) }
                return chunk
            }
        }
        switch source {
        case .chunks(let chunks):
            return OSSResponseBody(.iterate({
                var iterator = chunks.makeIterator()
                return counted { iterator.next() }
            }))
        case .stream(let stream):
            return OSSResponseBody(.iterate({
                var iterator = stream.makeAsyncIterator()
                return counted { try await iterator.next() }
            }))
        case .pull(let next):
            return OSSResponseBody(.pull({
                let chunk = try await next()
                if let chunk { observe(chunk.count) }
                return chunk
            }))
        case .iterate(let makeNext):
            return OSSResponseBody(.iterate({ counted(makeNext()) }))
        case .batches(let next):
            return OSSResponseBody(.batches({ maxBytes in
                let chunks = try await next(maxBytes)
                for chunk in chunks ?? [] { observe(chunk.count) }
                return chunks
            }))
        }
    }

    /// Collects the whole body, failing with `.invalidArgument` if it is longer than `maxBytes`.
    public func collect(upTo maxBytes: Int) async throws -> Data {
        var result = Data()
        for try await chunk in self {
            guard result.count + chunk.count <= maxBytes else {
                throw OSSClientError(.invalidArgument, "the response body is larger than the limit of \(maxBytes) bytes")
            }
            result.append(chunk)
        }
        return result
    }

    /// Collects the whole body as bytes, failing with `.invalidArgument` if it is longer than `maxBytes`.
    public func collectBytes(upTo maxBytes: Int) async throws -> [UInt8] {
        Array(try await collect(upTo: maxBytes))
    }

    /// Reads and discards the rest of the body.
    public func drain() async throws {
        for try await _ in self {}
    }

    /// The most bytes a file writer takes from a buffered body at once (``AsyncIterator/nextBatch(upTo:)``).
    static let writeBatchLength = 256 * 1024

    /// Streams the body into an open file at `offset` and onwards, chunk by chunk (the chunks already buffered
    /// written with one call).
    ///
    /// - Returns: the number of bytes written and their CRC-64.
    func write(to file: OSSFile, at offset: Int64, onChunk: ((Int64) -> Void)? = nil) async throws -> (
        bytes: Int64, crc64: UInt64
    ) {
        var position = offset
        var crc = CRC64()
        var chunks = makeAsyncIterator()
        while let batch = try await chunks.nextBatch(upTo: Self.writeBatchLength) {
            let count = batch.reduce(0) { $0 + $1.count }
            for chunk in batch { chunk.withUnsafeBytes { crc.update($0) } }
            try await file.write(batch, at: position)
            position += Int64(count)
            onChunk?(Int64(count))
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
        try await OSSFile.withFile(path, .update(create: true)) { file in
            try await write(to: file, at: offset, onChunk: onChunk)
        }
    }
}
