#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The bounded hand-over between a download stream's producer (the task reading the object off the network)
/// and its consumer (whoever iterates ``OSSObjectStream``): the object's head once, then its bytes in order.
///
/// The producer never holds more than ``limit`` unread bytes here: a chunk that does not fit is split, and the
/// producer waits for room (until the consumer has read the buffer down to half) before adding the rest. Either
/// side can end the exchange: the producer finishes or fails it (the consumer gets the failure after the bytes
/// already queued), the consumer closes it (the producer's next push throws `CancellationError`).
final class OSSObjectStreamChannel: Sendable {
    /// What the first answer said about the object.
    struct Head: Sendable {
        var eTag: String
        var objectSize: Int64
        var crc64: UInt64?
        var result: OSSGetObjectResult
    }

    private struct State {
        var head: Head?
        var chunks = OSSChunkQueue()
        var finished = false
        var failure: (any Error)?
        var closed = false
        var headWaiter: CheckedContinuation<Head, any Error>?
        var chunkWaiter: CheckedContinuation<Data?, any Error>?
        var roomWaiter: CheckedContinuation<Void, any Error>?
        /// The most bytes ever queued at once.
        var peak = 0
        /// Whether the producer is waiting for room now, and those waiting to see it do so.
        var producerWaiting = false
        var blockedWatchers: [CheckedContinuation<Void, Never>] = []
    }

    /// The most unread bytes the producer may queue.
    let limit: Int
    private let state = OSSLockedValue(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    // MARK: Producer

    /// Publishes the object's head (once, before any byte).
    func setHead(_ head: Head) {
        let waiter = state.withLockedValue { state in
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
    }

    /// Queues `chunk`, waiting for room as often as needed. Throws `CancellationError` once the consumer closed
    /// the channel (or the producer's task is cancelled while it waits).
    func push(_ chunk: Data) async throws {
        var rest = chunk
        while !rest.isEmpty {
            let room = try await waitForRoom()
            let piece: Data
            if rest.count <= room {
                piece = rest.startIndex == 0 ? rest : Data(rest)  // handed out with indices from 0
                rest = Data()
            } else {
                piece = Data(rest.prefix(room))
                rest = rest.dropFirst(room)
            }
            let handOver: CheckedContinuation<Data?, any Error>? = try state.withLockedValue { state in
                if state.closed { throw CancellationError() }
                if let waiter = state.chunkWaiter {
                    state.chunkWaiter = nil
                    return waiter
                }
                state.chunks.append(piece)
                state.peak = max(state.peak, state.chunks.byteCount)
                return nil
            }
            handOver?.resume(returning: piece)
        }
    }

    /// The bytes that may be queued now, once there are any.
    private func waitForRoom() async throws -> Int {
        while true {
            let room: Int? = try state.withLockedValue { state in
                if state.closed { throw CancellationError() }
                let room = limit - state.chunks.byteCount
                return room > 0 ? room : nil
            }
            if let room { return room }
            try await suspend(on: \.roomWaiter, producerWaits: true) { state in
                if state.closed { return .failure(CancellationError()) }
                return state.chunks.byteCount <= limit / 2 ? .success(()) : nil
            }
        }
    }

    /// The whole body was queued.
    func finish() {
        let (waiter, watchers) = state.withLockedValue { state in
            state.finished = true
            defer { state.chunkWaiter = nil; state.blockedWatchers = [] }
            return (state.chunkWaiter, state.blockedWatchers)
        }
        waiter?.resume(returning: nil)
        for watcher in watchers { watcher.resume() }
    }

    /// Ends the exchange with `error` (unless it already ended): the consumer gets it after the queued bytes.
    func fail(_ error: any Error) {
        let (headWaiter, chunkWaiter, roomWaiter, watchers, failure) = state.withLockedValue { state in
            if state.failure == nil, !state.finished { state.failure = error }
            defer {
                state.headWaiter = nil
                state.chunkWaiter = nil
                state.roomWaiter = nil
                state.blockedWatchers = []
            }
            return (state.headWaiter, state.chunkWaiter, state.roomWaiter, state.blockedWatchers, state.failure ?? error)
        }
        headWaiter?.resume(throwing: failure)
        chunkWaiter?.resume(throwing: failure)
        roomWaiter?.resume(throwing: CancellationError())
        for watcher in watchers { watcher.resume() }
    }

    // MARK: Consumer

    /// The object's head, once the first answer arrived.
    func head() async throws -> Head {
        try await suspend(on: \.headWaiter) { state in
            if let head = state.head { return .success(head) }
            if let failure = state.failure { return .failure(failure) }
            return nil
        }
    }

    /// The next chunk in order, or nil at the end of the body.
    func next() async throws -> Data? {
        let chunk = try await suspend(on: \.chunkWaiter) { state in
            if let chunk = state.chunks.popFirst() { return .success(chunk) }
            if let failure = state.failure { return .failure(failure) }
            if state.finished || state.closed { return .success(nil) }
            return nil
        }
        let room = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            guard state.chunks.byteCount <= limit / 2, let waiter = state.roomWaiter else { return nil }
            state.roomWaiter = nil
            state.producerWaiting = false
            return waiter
        }
        room?.resume()
        return chunk
    }

    /// The consumer is done: the queued bytes are released and a producer still pushing stops.
    func close() {
        let (roomWaiter, chunkWaiter) = state.withLockedValue { state in
            state.closed = true
            state.chunks = OSSChunkQueue()
            defer { state.roomWaiter = nil; state.chunkWaiter = nil }
            return (state.roomWaiter, state.chunkWaiter)
        }
        roomWaiter?.resume(throwing: CancellationError())
        chunkWaiter?.resume(returning: nil)
    }

    var isClosed: Bool { state.withLockedValue { $0.closed } }

    // MARK: Observation (tests)

    /// The most bytes that were ever queued at once: never more than ``limit``.
    var peakBufferedBytes: Int { state.withLockedValue { $0.peak } }

    /// The bytes queued now.
    var bufferedBytes: Int { state.withLockedValue { $0.chunks.byteCount } }

    /// Returns once the producer is waiting for room (at once if it is), or the exchange ended.
    func producerBlocked() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state in
                if state.producerWaiting || state.finished || state.failure != nil || state.closed { return true }
                state.blockedWatchers.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    // MARK: Waiting

    /// Suspends until `ready` (run under the lock) has an answer, storing the continuation in `waiter` meanwhile;
    /// whoever takes it from there resumes it. Cancellation resumes a stored continuation with `CancellationError`.
    private func suspend<T: Sendable>(
        on waiter: any WritableKeyPath<State, CheckedContinuation<T, any Error>?> & Sendable, producerWaits: Bool = false,
        _ ready: (inout State) -> Result<T, any Error>?
    ) async throws -> T {
        defer {
            if producerWaits { state.withLockedValue { $0.producerWaiting = false } }
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let (answer, watchers) = state.withLockedValue { state -> (Result<T, any Error>?, [CheckedContinuation<Void, Never>]) in
                    if let answer = ready(&state) { return (answer, []) }
                    if Task.isCancelled { return (.failure(CancellationError()), []) }
                    state[keyPath: waiter] = continuation
                    guard producerWaits else { return (nil, []) }
                    state.producerWaiting = true
                    defer { state.blockedWatchers = [] }
                    return (nil, state.blockedWatchers)
                }
                for watcher in watchers { watcher.resume() }
                if let answer { continuation.resume(with: answer) }
            }
        } onCancel: {
            let stored = state.withLockedValue { state in
                defer { state[keyPath: waiter] = nil }
                return state[keyPath: waiter]
            }
            stored?.resume(throwing: CancellationError())
        }
    }
}
