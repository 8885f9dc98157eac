#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bounded hand-over of one byte stream from the task (or callback) that produces it to the task that consumes
/// it: first a head (the response head, an object's head) once, then the bytes in order, then the end or a failure.
/// The transports' response bodies (the stall detector's pump, the URLSession delegate) and ``OSSObjectStream`` all
/// run on it.
///
/// **The limit.** At most ``limit`` unread bytes are held. An awaiting producer (``send(_:)``) waits while a chunk
/// does not fit, and is let in again once the consumer has read the buffer down to half the limit (or further, as
/// far as the waiting chunk needs): a full buffer costs one wake-up per half a buffer, not one per chunk. A chunk is
/// never split to fill the last bytes of room (splitting copies); only a chunk larger than the whole limit is cut
/// into pieces of `limit` bytes (each copied into its own `Data`), so the limit holds for any chunk size. A producer
/// that cannot wait (a delegate callback: ``yield(_:)``) always has its chunk queued and is asked to pause through
/// ``Hooks/paused`` once the limit is reached and to go on through ``Hooks/resumed`` at half of it; what it
/// delivers while pausing (bytes already on their way; a URLSession on Linux cannot pause at all) goes beyond the
/// limit.
///
/// **Ends.** The producer ends the stream with ``finish()`` or ``fail(_:)`` (anyone may fail it, e.g. a watchdog);
/// the first end wins. A failure reaches the consumer after the bytes already queued, the way an end does: the
/// consumer sees every byte that arrived before the failure, then the error. The consumer ends it with ``close()``:
/// the queued bytes are released, a waiting producer throws `CancellationError` and later sends throw it too, a
/// callback producer is told through ``Hooks/consumerGone``.
///
/// **Cancellation.** A consumer whose task is cancelled gets `CancellationError` from its next ``head()`` or
/// ``next()`` (also while it waits, at once) and the channel closes, so the producer stops too. A producer whose
/// task is cancelled gets `CancellationError` from ``send(_:)`` (also while it waits, at once); the chunk it was
/// sending is not queued. Neither is ever swallowed.
///
/// One producer and one consumer at a time. All state is behind one lock; continuations are resumed and hooks
/// called outside it.
final class OSSByteChannel<Head: Sendable>: AsyncSequence, Sendable {
    typealias Element = Data

    /// What the producer's side does when the channel asks it to pause, to go on, or to stop. Each runs outside
    /// the channel's lock.
    struct Hooks: Sendable {
        /// The producer stopped for want of room: an awaiting producer begins to wait (a stall monitor stops its
        /// clock), a callback producer is asked to pause (a URLSession task is suspended).
        var paused: (@Sendable () -> Void)?
        /// Balances ``paused``: an awaiting producer's wait ended (for any reason), or a paused callback producer
        /// may go on (the consumer read the buffer down to half the limit).
        var resumed: (@Sendable () -> Void)?
        /// The consumer is gone (closed the channel, or was cancelled) before the producer ended: a callback
        /// producer stops (a URLSession task is cancelled).
        var consumerGone: (@Sendable () -> Void)?

        init(
            paused: (@Sendable () -> Void)? = nil, resumed: (@Sendable () -> Void)? = nil,
            consumerGone: (@Sendable () -> Void)? = nil
        ) {
            self.paused = paused
            self.resumed = resumed
            self.consumerGone = consumerGone
        }
    }

    private enum End {
        case finished
        case failed(any Error)
    }

    /// What a send does once the lock is released.
    private enum SendStep {
        case handOver(CheckedContinuation<[Data]?, any Error>)
        case queued
        case stop
        case wait
    }

    /// What a yield does once the lock is released.
    private enum YieldStep {
        case handOver(CheckedContinuation<[Data]?, any Error>)
        case queued
        case pause([CheckedContinuation<Void, Never>])
    }

    private typealias Watchers = [CheckedContinuation<Void, Never>]

    private struct State {
        var head: Head?
        var queue = Queue()
        var end: End?
        var closed = false
        var headWaiter: CheckedContinuation<Head, any Error>?
        var chunkWaiter: CheckedContinuation<[Data]?, any Error>?
        /// An awaiting producer's continuation, and the buffered bytes at or below which it is let in again.
        var roomWaiter: CheckedContinuation<Void, any Error>?
        var roomLevel = 0
        /// A callback producer was asked to pause and not yet to go on.
        var callbackPaused = false
        /// The most bytes ever queued at once.
        var peak = 0
        /// Those waiting to see the producer wait (tests).
        var blockedWatchers: Watchers = []

        var producerWaits: Bool { roomWaiter != nil || callbackPaused }

        mutating func enqueue(_ chunk: Data) {
            queue.append(chunk)
            peak = Swift.max(peak, queue.byteCount)
        }

        /// Whether nothing is left to watch for: the producer ended, or the consumer left.
        var isOver: Bool { closed || end != nil }

        mutating func takeWatchers() -> Watchers {
            defer { blockedWatchers = [] }
            return blockedWatchers
        }
    }

    /// The most unread bytes an awaiting producer may have queued.
    let limit: Int
    private let hooks: Hooks
    private let state = OSSLockedValue(State())

    /// - Parameter limit: clamped to at least 1 byte.
    init(limit: Int, hooks: Hooks = Hooks()) {
        self.limit = Swift.max(1, limit)
        self.hooks = hooks
    }

    // MARK: Producer

    /// Publishes the head (once, before any byte); ignored once the exchange ended.
    func setHead(_ head: Head) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Head, any Error>? in
            guard !state.isOver else { return nil }
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Queues `chunk` (or hands it straight to a waiting consumer), waiting for room as often as needed; a chunk
    /// larger than ``limit`` goes in pieces of at most ``limit`` bytes.
    ///
    /// Throws `CancellationError` when the producer's task is cancelled, the consumer closed the channel, or
    /// someone ended it (``fail(_:)``): then the rest of `chunk` is not queued.
    func send(_ chunk: Data) async throws {
        if chunk.count <= limit {
            return try await sendPiece(chunk)
        }
        var offset = chunk.startIndex
        while offset < chunk.endIndex {
            let end = Swift.min(offset + limit, chunk.endIndex)
            try await sendPiece(Data(chunk[offset..<end]))
            offset = end
        }
    }

    /// One piece of at most ``limit`` bytes.
    private func sendPiece(_ piece: Data) async throws {
        guard !piece.isEmpty else { return }
        while true {
            if Task.isCancelled { throw CancellationError() }
            let action = state.withLockedValue { state -> SendStep in
                if state.isOver { return .stop }
                if let waiter = state.chunkWaiter {
                    state.chunkWaiter = nil
                    return .handOver(waiter)
                }
                guard state.queue.byteCount + piece.count <= limit else { return .wait }
                state.enqueue(piece)
                return .queued
            }
            switch action {
            case .handOver(let waiter):
                waiter.resume(returning: [piece])
                return
            case .queued:
                return
            case .stop:
                throw CancellationError()
            case .wait:
                hooks.paused?()
                defer { hooks.resumed?() }
                try await waitForRoom(Swift.min(limit / 2, limit - piece.count))
            }
        }
    }

    /// Waits until at most `level` bytes are queued (then the caller tries again).
    private func waitForRoom(_ level: Int) async throws {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (answer, watchers) = state.withLockedValue { state -> (Result<Void, any Error>?, Watchers) in
                    if state.isOver || Task.isCancelled { return (.failure(CancellationError()), []) }
                    if state.queue.byteCount <= level { return (.success(()), []) }
                    state.roomWaiter = continuation
                    state.roomLevel = level
                    return (nil, state.takeWatchers())
                }
                for watcher in watchers { watcher.resume() }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state in
                defer { state.roomWaiter = nil }
                return state.roomWaiter
            }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// Queues `chunk` at once, for a producer that cannot wait (a delegate callback); when the queue reaches
    /// ``limit`` the producer is asked to pause (``Hooks/paused``). Dropped once the exchange ended.
    func yield(_ chunk: Data) {
        guard !chunk.isEmpty else { return }
        let action = state.withLockedValue { state -> YieldStep in
            if state.isOver { return .queued }
            if let waiter = state.chunkWaiter {
                state.chunkWaiter = nil
                return .handOver(waiter)
            }
            state.enqueue(chunk)
            guard state.queue.byteCount >= limit, !state.callbackPaused else { return .queued }
            state.callbackPaused = true
            return .pause(state.takeWatchers())
        }
        switch action {
        case .handOver(let waiter): waiter.resume(returning: [chunk])
        case .queued: break
        case .pause(let watchers):
            hooks.paused?()
            for watcher in watchers { watcher.resume() }
        }
    }

    /// The whole stream was queued: the consumer reads the rest, then the end. Ignored once the exchange ended.
    func finish() {
        let (headWaiter, chunkWaiter, watchers) = state.withLockedValue {
            state -> (CheckedContinuation<Head, any Error>?, CheckedContinuation<[Data]?, any Error>?, Watchers) in
            guard !state.isOver else { return (nil, nil, []) }
            state.end = .finished
            defer { state.headWaiter = nil; state.chunkWaiter = nil }
            return (state.headWaiter, state.chunkWaiter, state.takeWatchers())
        }
        headWaiter?.resume(throwing: Self.endedWithoutHead)
        chunkWaiter?.resume(returning: nil)
        for watcher in watchers { watcher.resume() }
    }

    /// Ends the stream with `error` (ignored once the exchange ended): the consumer reads the bytes queued, then
    /// gets `error`; a producer waiting for room throws `CancellationError`.
    func fail(_ error: any Error) {
        let (headWaiter, chunkWaiter, roomWaiter, watchers) = state.withLockedValue {
            state -> (
                CheckedContinuation<Head, any Error>?, CheckedContinuation<[Data]?, any Error>?,
                CheckedContinuation<Void, any Error>?, Watchers
            ) in
            guard !state.isOver else { return (nil, nil, nil, []) }
            state.end = .failed(error)
            defer { state.headWaiter = nil; state.chunkWaiter = nil; state.roomWaiter = nil }
            return (state.headWaiter, state.chunkWaiter, state.roomWaiter, state.takeWatchers())
        }
        headWaiter?.resume(throwing: error)
        chunkWaiter?.resume(throwing: error)
        roomWaiter?.resume(throwing: CancellationError())
        for watcher in watchers { watcher.resume() }
    }

    // MARK: Consumer

    /// The head, once published. Throws the stream's failure if it failed first, `CancellationError` when the
    /// consumer's task is cancelled (the channel closes) or the channel was closed.
    func head() async throws -> Head {
        try await consume(
            waiter: .init(
                take: { state in
                    defer { state.headWaiter = nil }
                    return state.headWaiter
                }, park: { $0.headWaiter = $1 }, isParked: { $0.headWaiter != nil })
        ) { state in
            if let head = state.head { return .success(head) }
            if state.closed { return .failure(CancellationError()) }
            switch state.end {
            case .failed(let error): return .failure(error)
            case .finished: return .failure(Self.endedWithoutHead)
            case nil: return nil
            }
        }
    }

    /// The next chunk in order, or nil at the end of the stream. Throws the stream's failure once the bytes queued
    /// before it were read, `CancellationError` when the consumer's task is cancelled (the channel closes) or the
    /// channel was closed.
    func next() async throws -> Data? {
        try await next(upTo: 0)?.first
    }

    /// The next chunk in order and, behind it, as many of the chunks already queued as fit in `maxBytes` with it
    /// (never a wait for more: a consumer that writes a batch at once pays one hand-over for the chunks that
    /// arrived while it was busy); nil at the end of the stream. Throws as ``next()`` does.
    func next(upTo maxBytes: Int) async throws -> [Data]? {
        if Task.isCancelled {
            close()
            throw CancellationError()
        }
        // Who to wake for the room a read frees: an awaiting producer let in again, a callback producer resumed.
        var wake: (room: CheckedContinuation<Void, any Error>?, resume: Bool) = (nil, false)
        let chunks = try await consume(
            waiter: .init(
                take: { state in
                    defer { state.chunkWaiter = nil }
                    return state.chunkWaiter
                }, park: { $0.chunkWaiter = $1 }, isParked: { $0.chunkWaiter != nil })
        ) { state in
            if state.closed { return .failure(CancellationError()) }
            if let first = state.queue.popFirst() {
                var batch = [first]
                var bytes = first.count
                while let size = state.queue.firstCount, bytes + size <= maxBytes, let chunk = state.queue.popFirst() {
                    batch.append(chunk)
                    bytes += size
                }
                let left = state.queue.byteCount
                if state.roomWaiter != nil, left <= state.roomLevel {
                    wake.room = state.roomWaiter
                    state.roomWaiter = nil
                }
                if state.callbackPaused, left <= limit / 2 {
                    state.callbackPaused = false
                    wake.resume = true
                }
                return .success(batch)
            }
            switch state.end {
            case .failed(let error): return .failure(error)
            case .finished: return .success(nil)
            case nil: return nil
            }
        }
        wake.room?.resume()
        if wake.resume { hooks.resumed?() }
        return chunks
    }

    /// The consumer is done (read to the end, or gave up): the queued bytes are released, the producer stops
    /// (a waiting or later ``send(_:)`` throws `CancellationError`; a callback producer is told through
    /// ``Hooks/consumerGone`` when it had not ended). Idempotent.
    func close() {
        let (roomWaiter, chunkWaiter, headWaiter, watchers, producerRuns) = state.withLockedValue {
            state -> (
                CheckedContinuation<Void, any Error>?, CheckedContinuation<[Data]?, any Error>?,
                CheckedContinuation<Head, any Error>?, Watchers, Bool
            ) in
            guard !state.closed else { return (nil, nil, nil, [], false) }
            state.closed = true
            state.queue = Queue()
            defer { state.roomWaiter = nil; state.chunkWaiter = nil; state.headWaiter = nil }
            return (state.roomWaiter, state.chunkWaiter, state.headWaiter, state.takeWatchers(), state.end == nil)
        }
        roomWaiter?.resume(throwing: CancellationError())
        chunkWaiter?.resume(throwing: CancellationError())
        headWaiter?.resume(throwing: CancellationError())
        for watcher in watchers { watcher.resume() }
        if producerRuns { hooks.consumerGone?() }
    }

    /// Where a waiting consumer's continuation is kept. (Not a key path: in this generic class one would be
    /// instantiated at run time, type names demangled, on every read.)
    private struct Waiter<T: Sendable>: Sendable {
        let take: @Sendable (inout State) -> CheckedContinuation<T, any Error>?
        let park: @Sendable (inout State, CheckedContinuation<T, any Error>) -> Void
        let isParked: @Sendable (State) -> Bool
    }

    /// Suspends the consumer until `ready` (run under the lock) has an answer, its continuation parked in
    /// `waiter` meanwhile (whoever takes it from there resumes it). Cancellation fails the wait with
    /// `CancellationError` and closes the channel.
    private func consume<T: Sendable>(
        waiter: Waiter<T>, _ ready: (inout State) -> Result<T, any Error>?
    ) async throws -> T {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                    let answer = state.withLockedValue { state -> Result<T, any Error>? in
                        if let answer = ready(&state) { return answer }
                        if Task.isCancelled { return .failure(CancellationError()) }
                        precondition(!waiter.isParked(state), "two consumers read one OSSByteChannel at once")
                        waiter.park(&state, continuation)
                        return nil
                    }
                    if let answer { continuation.resume(with: answer) }
                }
            } onCancel: {
                let stored = state.withLockedValue { waiter.take(&$0) }
                stored?.resume(throwing: CancellationError())
            }
        } catch let error as CancellationError {
            close()
            throw error
        }
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        let channel: OSSByteChannel

        mutating func next() async throws -> Data? {
            try await channel.next()
        }
    }

    /// The chunks, read with ``next()``; iterate once.
    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(channel: self)
    }

    /// What ``head()`` throws when the stream finished without one.
    static var endedWithoutHead: OSSClientError {
        OSSClientError(.networkingFailWithResponseCode0, "the exchange ended before its head arrived")
    }

    // MARK: Observation

    /// Whether the producer ended the stream (finished or failed).
    var producerEnded: Bool { state.withLockedValue { $0.end != nil } }

    /// Whether the producer finished the stream (every byte was queued).
    var isFinished: Bool {
        state.withLockedValue { if case .finished = $0.end { true } else { false } }
    }

    /// Whether the consumer closed the channel.
    var isClosed: Bool { state.withLockedValue { $0.closed } }

    /// The most bytes ever queued at once: at most ``limit`` for an awaiting producer.
    var peakBufferedBytes: Int { state.withLockedValue { $0.peak } }

    /// The bytes queued now.
    var bufferedBytes: Int { state.withLockedValue { $0.queue.byteCount } }

    /// Whether the producer waits for room now (an awaiting producer suspended, or a callback producer asked to
    /// pause).
    var producerIsWaiting: Bool { state.withLockedValue { $0.producerWaits } }

    /// Whether the consumer waits for the head or the next chunk now.
    var consumerIsWaiting: Bool { state.withLockedValue { $0.headWaiter != nil || $0.chunkWaiter != nil } }

    /// Returns once the producer waits for room (an awaiting producer suspended, or a callback producer asked to
    /// pause), at once if it does, or once the exchange is over.
    func producerBlocked() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state in
                if state.producerWaits || state.isOver { return true }
                state.blockedWatchers.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: Queue

    /// A first-in first-out queue of chunks. A chunk taken out is released at once (its slot is emptied), so a
    /// queue that never runs dry does not keep what was read.
    private struct Queue {
        private var chunks: [Data] = []
        private var head = 0
        /// The bytes queued.
        private(set) var byteCount = 0

        mutating func append(_ chunk: Data) {
            chunks.append(chunk)
            byteCount += chunk.count
        }

        /// The size of the chunk ``popFirst()`` would return.
        var firstCount: Int? { head < chunks.count ? chunks[head].count : nil }

        mutating func popFirst() -> Data? {
            guard head < chunks.count else { return nil }
            let chunk = chunks[head]
            chunks[head] = Data()
            head += 1
            byteCount -= chunk.count
            if head == chunks.count {
                chunks.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 32, head * 2 >= chunks.count {
                chunks.removeFirst(head)
                head = 0
            }
            return chunk
        }
    }
}
