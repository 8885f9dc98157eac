
/// The checkpoints parts in flight report (a download part's written prefix), handed from the parts' child tasks
/// to the ``OSSTransferDriver``'s task, which feeds them to the machine.
///
/// A part posts from its child task and goes on at once; the driver keeps one listening child in its task group
/// that ``wait()``s until something was posted, then ``drain()``s everything posted so far in one go (so a burst
/// of checkpoints costs one record save, not one each).
final class OSSTransferCheckpoints<Event: Sendable>: Sendable {
    private struct State {
        var events: [Event] = []
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = OSSLockedValue(State())

    /// Hands `event` to the driver (never waits).
    func post(_ event: Event) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.events.append(event)
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once an event is waiting to be drained, or at once when one already is or the task is cancelled.
    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLockedValue { state -> Bool in
                    if !state.events.isEmpty || Task.isCancelled { return true }
                    state.waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }

    /// Everything posted since the last drain, oldest first.
    func drain() -> [Event] {
        state.withLockedValue { state in
            defer { state.events = [] }
            return state.events
        }
    }
}
