@testable import AliyunOSS
import Foundation
import OSSTestSupport
import Testing

/// The one bounded byte channel under the transports' response bodies and the download stream. Every wait is on
/// an explicit signal (the channel's own observation, a continuation), never on time.
@Suite("OSSByteChannel: backpressure, ends, cancellation, the limit")
struct ByteChannelTests {
    typealias Channel = OSSByteChannel<Int>

    static func bytes(_ count: Int, from start: Int = 0) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: start + $0 &* 7) })
    }

    /// Waits (yielding, not sleeping) until `condition` holds.
    static func until(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test("a producer blocks when a chunk does not fit and goes on once the consumer read down to half the limit")
    func backpressure() async throws {
        let channel = Channel(limit: 100)
        let sent = Box(0)
        let producer = Task {
            for index in 0..<4 {
                try await channel.send(Self.bytes(30, from: index * 30))
                sent.update { $0 += 1 }
            }
        }
        await channel.producerBlocked()
        #expect(channel.producerIsWaiting)
        #expect(sent.value == 3)
        #expect(channel.bufferedBytes == 90)
        // 60 left: above half the limit, so the producer still waits.
        #expect(try await channel.next() == Self.bytes(30, from: 0))
        #expect(channel.producerIsWaiting)
        #expect(channel.bufferedBytes == 60)
        // 30 left: the fourth chunk goes in.
        #expect(try await channel.next() == Self.bytes(30, from: 30))
        try await producer.value
        #expect(sent.value == 4)
        #expect(channel.bufferedBytes == 60)
        #expect(channel.peakBufferedBytes == 90)
        channel.finish()
        var rest = Data()
        for try await chunk in channel { rest += chunk }
        #expect(rest == Self.bytes(30, from: 60) + Self.bytes(30, from: 90))
    }

    @Test("a chunk larger than the limit goes in pieces of the limit; a chunk that does not fit waits, unsplit")
    func neverAboveTheLimit() async throws {
        let channel = Channel(limit: 100)
        let big = Self.bytes(250, from: 1)
        let producer = Task {
            try await channel.send(Self.bytes(60))
            try await channel.send(big)
            channel.finish()
        }
        await channel.producerBlocked()
        // 60 queued; the first piece (100 bytes) does not fit beside them and is not cut to fit.
        #expect(channel.bufferedBytes == 60)
        var chunks: [Data] = []
        for try await chunk in channel {
            chunks.append(chunk)
            #expect(channel.bufferedBytes <= 100)
        }
        try await producer.value
        #expect(chunks.map(\.count) == [60, 100, 100, 50])
        #expect(chunks.dropFirst().reduce(Data(), +) == big)
        #expect(chunks.allSatisfy { $0.startIndex == 0 })
        #expect(channel.peakBufferedBytes <= 100)
    }

    @Test("next(upTo:) takes the chunks queued behind the next one that fit, in order, and never waits for more")
    func batchesTakeWhatIsQueued() async throws {
        let channel = Channel(limit: 100)
        for index in 0..<4 { try await channel.send(Self.bytes(20, from: index * 20)) }
        // 80 queued: 50 bytes take the next chunk and one more (a third would not fit), unsplit.
        #expect(try await channel.next(upTo: 50) == [Self.bytes(20, from: 0), Self.bytes(20, from: 20)])
        // 0 takes the next chunk alone; a limit below the first chunk still takes it.
        #expect(try await channel.next(upTo: 0) == [Self.bytes(20, from: 40)])
        #expect(try await channel.next(upTo: 5) == [Self.bytes(20, from: 60)])
        // Nothing queued: the consumer waits for one chunk and returns with it, not for the batch to fill.
        let consumer = Task { try await channel.next(upTo: 1000) }
        await Self.until { channel.consumerIsWaiting }
        try await channel.send(Self.bytes(10, from: 80))
        #expect(try await consumer.value == [Self.bytes(10, from: 80)])
        channel.finish()
        #expect(try await channel.next(upTo: 1000) == nil)
    }

    @Test("a batch frees room: a producer waiting for it is let in once the batch leaves half the limit or less")
    func batchesWakeTheProducer() async throws {
        let channel = Channel(limit: 100)
        let producer = Task {
            for index in 0..<6 { try await channel.send(Self.bytes(25, from: index * 25)) }
            channel.finish()
        }
        await channel.producerBlocked()
        #expect(channel.bufferedBytes == 100)
        let batch = try await channel.next(upTo: 60)
        #expect(batch?.map(\.count) == [25, 25])
        var rest: [Data] = []
        while let more = try await channel.next(upTo: 1000) { rest += more }
        try await producer.value
        #expect(((batch ?? []) + rest).reduce(Data(), +) == (0..<6).map { Self.bytes(25, from: $0 * 25) }.reduce(Data(), +))
        #expect(channel.peakBufferedBytes <= 100)
    }

    @Test("finish: the consumer reads every byte, then the end, and the end again")
    func finishDeliversEverything() async throws {
        let channel = Channel(limit: 1000)
        channel.setHead(7)
        for index in 0..<5 { try await channel.send(Self.bytes(10, from: index)) }
        channel.finish()
        #expect(try await channel.head() == 7)
        var received: [Data] = []
        while let chunk = try await channel.next() { received.append(chunk) }
        #expect(received == (0..<5).map { Self.bytes(10, from: $0) })
        #expect(try await channel.next() == nil)
        #expect(channel.isFinished)
        // A late failure does not change a finished stream.
        channel.fail(OSSClientError(.networkError, "late"))
        #expect(try await channel.next() == nil)
    }

    @Test("fail: the bytes queued before the failure, then the failure; a waiting consumer gets it at once")
    func failAfterTheQueuedBytes() async throws {
        let channel = Channel(limit: 1000)
        try await channel.send(Self.bytes(10))
        try await channel.send(Self.bytes(20))
        channel.fail(OSSClientError(.networkError, "cut"))
        #expect(try await channel.next() == Self.bytes(10))
        #expect(try await channel.next() == Self.bytes(20))
        await #expect(throws: OSSClientError.self) { try await channel.next() }
        await #expect(throws: OSSClientError.self) { try await channel.next() }
        // The producer's later sends stop.
        await #expect(throws: CancellationError.self) { try await channel.send(Self.bytes(1)) }

        let waiting = Channel(limit: 10)
        let consumer = Task { try await waiting.next() }
        await Self.until { waiting.consumerIsWaiting }
        waiting.fail(OSSClientError(.networkError, "cut"))
        let error = await #expect(throws: OSSClientError.self) { try await consumer.value }
        #expect(error?.code == .networkError)
    }

    @Test("the head: published once; a failure or an end before it reaches a waiting consumer")
    func head() async throws {
        let failed = Channel(limit: 10)
        let waiter = Task { try await failed.head() }
        await Self.until { failed.consumerIsWaiting }
        failed.fail(OSSClientError(.networkError, "no answer"))
        let error = await #expect(throws: OSSClientError.self) { try await waiter.value }
        #expect(error?.message.contains("no answer") == true)

        let ended = Channel(limit: 10)
        ended.finish()
        let endError = await #expect(throws: OSSClientError.self) { try await ended.head() }
        #expect(endError?.code == .networkingFailWithResponseCode0)
    }

    @Test("a fail from outside (a watchdog) wakes a producer waiting for room with CancellationError")
    func failWakesTheProducer() async throws {
        let channel = Channel(limit: 10)
        let producer = Task {
            try await channel.send(Self.bytes(10))
            try await channel.send(Self.bytes(10))
        }
        await channel.producerBlocked()
        channel.fail(OSSClientError(.networkError, "stalled"))
        await #expect(throws: CancellationError.self) { try await producer.value }
        #expect(try await channel.next() == Self.bytes(10))
        await #expect(throws: OSSClientError.self) { try await channel.next() }
    }

    @Test("a cancelled consumer closes the channel: CancellationError to it and to the producer blocked at the limit")
    func consumerCancellation() async throws {
        let channel = Channel(limit: 10)
        let producer = Task {
            try await channel.send(Self.bytes(10))
            try await channel.send(Self.bytes(10))
        }
        await channel.producerBlocked()
        let (gate, open) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for await _ in gate { break }
            return try await channel.next()
        }
        consumer.cancel()
        open.finish()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        await #expect(throws: CancellationError.self) { try await producer.value }
        #expect(channel.isClosed)
        #expect(channel.bufferedBytes == 0)
        await #expect(throws: CancellationError.self) { try await channel.send(Self.bytes(1)) }
    }

    @Test("a consumer cancelled while it waits (for the head, for a chunk) gets CancellationError at once")
    func consumerCancelledWhileWaiting() async throws {
        for readsHead in [true, false] {
            let channel = Channel(limit: 10)
            let consumer = Task {
                if readsHead { _ = try await channel.head() } else { _ = try await channel.next() }
            }
            await Self.until { channel.consumerIsWaiting }
            consumer.cancel()
            await #expect(throws: CancellationError.self) { try await consumer.value }
            #expect(channel.isClosed)
            await #expect(throws: CancellationError.self) { try await channel.send(Self.bytes(1)) }
            // Closed is not a normal end: a read after it throws too.
            await #expect(throws: CancellationError.self) { try await channel.next() }
        }
    }

    @Test("a producer cancelled while it waits for room throws CancellationError; its chunk is not queued")
    func producerCancellation() async throws {
        let channel = Channel(limit: 10)
        let producer = Task {
            try await channel.send(Self.bytes(8))
            try await channel.send(Self.bytes(8, from: 8))
        }
        await channel.producerBlocked()
        producer.cancel()
        await #expect(throws: CancellationError.self) { try await producer.value }
        #expect(!channel.producerIsWaiting)
        #expect(channel.bufferedBytes == 8)
        // The channel is still open: the queued bytes can be read, and the producer's own failure follows.
        channel.fail(CancellationError())
        #expect(try await channel.next() == Self.bytes(8))
        await #expect(throws: CancellationError.self) { try await channel.next() }
    }

    @Test("a producer that cannot wait: paused at the limit, resumed at half, told when the consumer is gone")
    func callbackProducer() async throws {
        let events = Box<[String]>([])
        let channel = Channel(
            limit: 100,
            hooks: .init(
                paused: { events.update { $0.append("paused") } }, resumed: { events.update { $0.append("resumed") } },
                consumerGone: { events.update { $0.append("gone") } }))
        for index in 0..<3 { channel.yield(Self.bytes(40, from: index)) }
        #expect(events.value == ["paused"])
        #expect(channel.producerIsWaiting)
        // Bytes already on their way while pausing are kept (beyond the limit).
        channel.yield(Self.bytes(40, from: 3))
        #expect(channel.bufferedBytes == 160)
        #expect(events.value == ["paused"])
        _ = try await channel.next()
        _ = try await channel.next()
        #expect(events.value == ["paused"])
        _ = try await channel.next()
        #expect(events.value == ["paused", "resumed"])
        channel.close()
        #expect(events.value == ["paused", "resumed", "gone"])
        // Once closed, what still arrives is dropped.
        channel.yield(Self.bytes(40))
        #expect(channel.bufferedBytes == 0)

        let finished = Channel(limit: 100, hooks: .init(consumerGone: { events.update { $0.append("gone again") } }))
        finished.finish()
        finished.close()
        #expect(!events.value.contains("gone again"))
    }

    @Test("many rounds at once, random limits and chunk sizes: every byte in order, the limit never exceeded")
    func randomRounds() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<200 {
                group.addTask { try await Self.round(seed: UInt64(round) &+ 0x9E37_79B9) }
                if round >= 8 { try await group.next() }
            }
            try await group.waitForAll()
        }
    }

    static func round(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let limit = Int(random.next() % 4096) + 1
        let chunkCount = Int(random.next() % 60)
        var chunks: [Data] = []
        var position = 0
        for _ in 0..<chunkCount {
            let size = Int(random.next() % UInt64(2 * limit + 2))  // empty, small, exactly the limit, beyond it
            chunks.append(bytes(size, from: position))
            position += size
        }
        let expected = chunks.reduce(Data(), +)
        let channel = Channel(limit: limit)
        let consumerSeed = random.next()
        let producer = Task {
            for chunk in chunks { try await channel.send(chunk) }
            channel.finish()
        }
        var received = Data()
        var consumerRandom = SplitMix64(seed: consumerSeed)
        for try await chunk in channel {
            #expect(!chunk.isEmpty && chunk.count <= limit)
            #expect(channel.bufferedBytes <= limit)
            received += chunk
            for _ in 0..<Int(consumerRandom.next() % 3) { await Task.yield() }
        }
        try await producer.value
        #expect(received == expected, "seed \(seed)")
        #expect(channel.peakBufferedBytes <= limit, "seed \(seed)")
    }
}
