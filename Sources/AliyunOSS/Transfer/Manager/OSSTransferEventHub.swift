
/// Delivers a transfer manager's events: to its one `events` stream, and to the streams subscribed to one
/// transfer with `events(for:)`. Safe to call from any thread (progress arrives from the transfers' tasks).
final class OSSTransferEventHub: Sendable {
    typealias Continuation = AsyncStream<OSSTransferEvent>.Continuation

    private struct Subscribers {
        var nextId = 0
        var byTransfer: [String: [Int: Continuation]] = [:]
    }

    /// The newest events kept for a subscriber that does not keep up.
    static let bufferSize = 4096

    let all: AsyncStream<OSSTransferEvent>
    private let allContinuation: Continuation
    private let subscribers = OSSLockedValue(Subscribers())

    init() {
        (all, allContinuation) = AsyncStream.makeStream(
            of: OSSTransferEvent.self, bufferingPolicy: .bufferingNewest(Self.bufferSize))
    }

    /// A new stream of the events of transfer `id`.
    func subscribe(_ id: String) -> AsyncStream<OSSTransferEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: OSSTransferEvent.self, bufferingPolicy: .bufferingNewest(Self.bufferSize))
        let key = subscribers.withLockedValue { state -> Int in
            let key = state.nextId
            state.nextId += 1
            state.byTransfer[id, default: [:]][key] = continuation
            return key
        }
        continuation.onTermination = { [weak self] _ in
            self?.subscribers.withLockedValue { state in
                state.byTransfer[id]?[key] = nil
                if state.byTransfer[id]?.isEmpty == true { state.byTransfer[id] = nil }
            }
        }
        return stream
    }

    /// Sends `event` to every stream that wants it. A transfer's own streams finish after `.completed` and
    /// `.terminated`: nothing follows those.
    func yield(_ event: OSSTransferEvent) {
        allContinuation.yield(event)
        let final = event.change == .completed || event.change == .terminated
        let targets = subscribers.withLockedValue { state -> [Continuation] in
            let targets = Array((state.byTransfer[event.id] ?? [:]).values)
            if final { state.byTransfer[event.id] = nil }
            return targets
        }
        for continuation in targets {
            continuation.yield(event)
            if final { continuation.finish() }
        }
    }

    /// Finishes every stream.
    func finish() {
        allContinuation.finish()
        let targets = subscribers.withLockedValue { state -> [Continuation] in
            defer { state.byTransfer = [:] }
            return state.byTransfer.values.flatMap(\.values)
        }
        for continuation in targets { continuation.finish() }
    }
}
