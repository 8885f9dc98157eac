#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Hands a response from the task that reads it off the network (the producer) to the task that consumes it,
/// through a bounded buffer: the producer waits while more than ``highWater`` bytes are unread, and the monitor
/// does not count that wait as a stall.
///
/// Either side can end the exchange: the producer finishes or fails it (a failure reaches the consumer at its next
/// read), the consumer closes it (the producer's next push fails with `CancellationError`).
final class OSSResponsePump: Sendable {
    struct Head: Sendable {
        var status: Int
        var headers: [String: String]
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
    }

    /// Unread bytes above which the producer waits.
    let highWater: Int
    private let monitor: OSSStallMonitor
    private let state = OSSLockedValue(State())

    init(monitor: OSSStallMonitor, highWater: Int = 1 << 20) {
        self.monitor = monitor
        self.highWater = highWater
    }

    // MARK: Producer

    /// Reads `response` into the pump: its head, then its body chunk by chunk.
    func deliver(_ response: OSSHTTPResponse) async throws {
        monitor.answered()
        let head = Head(status: response.status, headers: response.headers)
        let waiter: CheckedContinuation<Head, any Error>? = state.withLockedValue { state in
            state.head = head
            defer { state.headWaiter = nil }
            return state.headWaiter
        }
        waiter?.resume(returning: head)
        for try await chunk in response.body {
            monitor.touch()
            try await push(chunk)
        }
        finish()
    }

    private func push(_ chunk: Data) async throws {
        enum Action { case handOver(CheckedContinuation<Data?, any Error>), buffered, full, closed }
        let action: Action = state.withLockedValue { state in
            if state.closed || state.failure != nil { return .closed }
            if let waiter = state.chunkWaiter {
                state.chunkWaiter = nil
                return .handOver(waiter)
            }
            state.chunks.append(chunk)
            return state.chunks.byteCount > highWater ? .full : .buffered
        }
        switch action {
        case .handOver(let waiter): waiter.resume(returning: chunk)
        case .buffered: break
        case .closed: throw CancellationError()
        case .full:
            monitor.pause()
            defer { monitor.resume() }
            try await waitForRoom()
        }
    }

    private func waitForRoom() async throws {
        try await suspend(on: \.roomWaiter) { state in
            if state.closed || state.failure != nil || Task.isCancelled { return .failure(CancellationError()) }
            return state.chunks.byteCount <= highWater / 2 ? .success(()) : nil
        }
    }

    private func finish() {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Data?, any Error>? in
            state.finished = true
            defer { state.chunkWaiter = nil }
            return state.chunkWaiter
        }
        waiter?.resume(returning: nil)
    }

    /// Ends the exchange with `error`, unless the body already ended: the consumer's next read throws it.
    func fail(_ error: any Error) {
        let (headWaiter, chunkWaiter, roomWaiter, failure) = state.withLockedValue { state in
            if state.failure == nil, !state.finished { state.failure = error }
            defer { state.headWaiter = nil; state.chunkWaiter = nil; state.roomWaiter = nil }
            return (state.headWaiter, state.chunkWaiter, state.roomWaiter, state.failure ?? error)
        }
        headWaiter?.resume(throwing: failure)
        chunkWaiter?.resume(throwing: failure)
        roomWaiter?.resume(throwing: CancellationError())
    }

    // MARK: Consumer

    /// The response head, once it arrived.
    func head() async throws -> Head {
        try await suspend(on: \.headWaiter) { state in
            if let head = state.head { return .success(head) }
            if let failure = state.failure { return .failure(failure) }
            return Task.isCancelled ? .failure(CancellationError()) : nil
        }
    }

    /// The next body chunk, or `nil` at the end of the body.
    func next() async throws -> Data? {
        let chunk = try await suspend(on: \.chunkWaiter) { state in
            if let chunk = state.chunks.popFirst() {
                return .success(chunk)
            }
            if let failure = state.failure { return .failure(failure) }
            if state.finished { return .success(nil) }
            return Task.isCancelled ? .failure(CancellationError()) : nil
        }
        let room = state.withLockedValue { state -> CheckedContinuation<Void, any Error>? in
            guard state.chunks.byteCount <= highWater / 2 else { return nil }
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        room?.resume()
        return chunk
    }

    /// Suspends until `ready` (run under the lock) has an answer, storing the continuation in `waiter` meanwhile;
    /// whoever takes it from there resumes it. Cancellation resumes a stored continuation with `CancellationError`.
    private func suspend<T: Sendable>(
        on waiter: WritableKeyPath<State, CheckedContinuation<T, any Error>?> & Sendable,
        _ ready: (inout State) -> Result<T, any Error>?
    ) async throws -> T {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let answer: Result<T, any Error>? = state.withLockedValue { state in
                    if let answer = ready(&state) { return answer }
                    state[keyPath: waiter] = continuation
                    return nil
                }
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

    /// Whether the producer delivered the whole body.
    var bodyEnded: Bool {
        state.withLockedValue { $0.finished }
    }

    /// The consumer is done (read to the end, or gave up): a producer still pushing stops.
    func close() {
        let waiter = state.withLockedValue { state in
            state.closed = true
            defer { state.roomWaiter = nil }
            return state.roomWaiter
        }
        waiter?.resume(throwing: CancellationError())
    }
}
