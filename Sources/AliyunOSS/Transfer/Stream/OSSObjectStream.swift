#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An object's bytes as an `AsyncSequence` of `Data` chunks, in order, from ``offset`` to the end: the answer of
/// ``OSSClient/downloadStream(_:)``.
///
/// A background task reads the object and stays at most ``OSSDownloadStreamRequest/bufferSize`` bytes ahead of the
/// consumer. Iterate it once. The iteration throws (an ``OSSClientError`` or ``OSSServerError``) when the stream
/// cannot be completed — also after the last byte, when the whole object's CRC-64 does not match (`.invalidCRC`):
/// treat the bytes as good only when the loop ends without throwing. Cancelling the consuming task ends the
/// iteration with `.taskCancelled`; dropping the stream (or its iterator) stops the background task.
public struct OSSObjectStream: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The ETag every request of the stream requires (`If-Match`).
    public var eTag: String { head.eTag }
    /// The first byte streamed.
    public let offset: Int64
    /// The whole object's size.
    public var objectSize: Int64 { head.objectSize }
    /// The bytes the stream delivers: ``objectSize`` − ``offset``.
    public var length: Int64 { head.objectSize - offset }
    /// The whole object's CRC-64 (`x-oss-hash-crc64ecma`), when the server sent it.
    public var crc64: UInt64? { head.crc64 }
    /// The first answer's metadata (content type, user metadata, headers); its `content` is nil.
    public var object: OSSGetObjectResult { head.result }

    let head: OSSObjectStreamHead
    let core: OSSObjectStreamCore
    let progress: OSSProgressHandler?

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(core: core, length: length, progress: progress, first: core.claimIteration())
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        let core: OSSObjectStreamCore
        let length: Int64
        let progress: OSSProgressHandler?
        let first: Bool
        var delivered: Int64 = 0

        init(core: OSSObjectStreamCore, length: Int64, progress: OSSProgressHandler?, first: Bool) {
            self.core = core
            self.length = length
            self.progress = progress
            self.first = first
        }

        public mutating func next() async throws -> Data? {
            guard first else {
                throw OSSClientError.invalidArgument("an OSSObjectStream can be iterated only once")
            }
            if Task.isCancelled {
                core.cancel()
                throw OSSClientError.cancelled()
            }
            let chunk: Data?
            do {
                chunk = try await core.channel.next()
            } catch {
                // The producer's failures arrive public; only the consumer's own cancellation ends a wait otherwise,
                // and then the stream is over for good.
                if OSSClientError.passesThrough(error) { throw error }
                core.cancel()
                throw OSSClientError.cancelled(error)
            }
            if let chunk {
                delivered += Int64(chunk.count)
                progress?(Int64(chunk.count), delivered, length)
            }
            return chunk
        }
    }

    // MARK: Observation (tests)

    /// The most bytes the producer ever had queued for the consumer.
    var peakBufferedBytes: Int { core.channel.peakBufferedBytes }

    /// The bytes queued for the consumer now.
    var bufferedBytes: Int { core.channel.bufferedBytes }

    /// Returns once the producer waits for the consumer to make room (or the stream ended).
    func producerBlocked() async { await core.channel.producerBlocked() }
}

/// What the first answer said about a streamed object.
struct OSSObjectStreamHead: Sendable {
    var eTag: String
    var objectSize: Int64
    var crc64: UInt64?
    var result: OSSGetObjectResult
}

/// What a stream and its iterator share: the channel (the producer never more than the stream's buffer size
/// ahead, a chunk larger than that split) and the producer task, cancelled when the last of them goes.
final class OSSObjectStreamCore: Sendable {
    let channel: OSSByteChannel<OSSObjectStreamHead>
    private let producer: Task<Void, Never>
    private let iterated = OSSLockedValue(false)

    init(channel: OSSByteChannel<OSSObjectStreamHead>, producer: Task<Void, Never>) {
        self.channel = channel
        self.producer = producer
    }

    /// True the first time only.
    func claimIteration() -> Bool {
        iterated.withLockedValue { iterated in
            defer { iterated = true }
            return !iterated
        }
    }

    func cancel() {
        channel.close()
        producer.cancel()
    }

    deinit {
        channel.close()
        producer.cancel()
    }
}
