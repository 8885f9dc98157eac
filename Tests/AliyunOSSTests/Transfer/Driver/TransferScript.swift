@testable import AliyunOSS
import NIOConcurrencyHelpers
import OSSResumable

/// The script shared by the scripted effects of the driver tests: it logs each effect in order and meets the
/// trouble the test scripted for a step — a failure (a number of times), a pause or a cancel of the request (as a
/// user would), or a part that blocks until it is cancelled.
final class TransferScript: Sendable {
    enum Step: Hashable, Sendable {
        case initiate, listParts, recheck, complete, head, prepare, commit, save(Int), part(Int)
    }

    enum Trouble: Sendable {
        /// Throws `error` this many times, then succeeds.
        case fail(times: Int, error: any Error)
        /// Cancels the request; a request (a step, a part) then throws, a record save still goes through.
        case cancel
        /// Pauses the request, like ``cancel``.
        case pause
        /// A part that waits until the driver cancels it.
        case block
        /// A part that waits until this many parts were in flight at once.
        case gather(Int)
        /// A part that waits until the condition holds.
        case until(@Sendable () -> Bool)
    }

    struct State {
        var log: [String] = []
        var troubles: [Step: Trouble] = [:]
        /// The part numbers of each record saved, in order.
        var saved: [[Int]] = []
        var attempts: [Int: Int] = [:]
        var inFlight = 0
        var mostInFlight = 0
        var reports: [Int64] = []
    }

    static let networkFailure = OSSClientError(.networkError, "scripted network failure")

    let state = NIOLockedValueBox(State())
    let cancellation = OSSTransferCancellation()
    let progress: OSSTransferProgressReporter

    init(troubles: [Step: Trouble], granularity: OSSTransferProgressGranularity) {
        let state = self.state
        state.withLockedValue { $0.troubles = troubles }
        progress = OSSTransferProgressReporter(
            handler: { _, total, _ in state.withLockedValue { $0.reports.append(total) } }, granularity: granularity)
    }

    var log: [String] { state.withLockedValue { $0.log } }
    var saved: [[Int]] { state.withLockedValue { $0.saved } }
    var reports: [Int64] { state.withLockedValue { $0.reports } }
    var mostInFlight: Int { state.withLockedValue { $0.mostInFlight } }
    func attempts(of part: Int) -> Int { state.withLockedValue { $0.attempts[part] ?? 0 } }

    func note(_ entry: String) { state.withLockedValue { $0.log.append(entry) } }

    /// Scripts `trouble` for `step` (for troubles that need what the test made after the script).
    func set(_ trouble: Trouble, for step: Step) { state.withLockedValue { $0.troubles[step] = trouble } }

    /// Logs `entry` and meets the trouble scripted for `step`. A stop throws `CancellationError` (what a request
    /// of a stopped transfer throws) unless `finishes`: a record save runs to its end.
    func meet(_ step: Step, logging entry: String, finishes: Bool = false) throws {
        let trouble = state.withLockedValue { state -> Trouble? in
            state.log.append(entry)
            guard let trouble = state.troubles[step] else { return nil }
            if case .fail(let times, let error) = trouble {
                state.troubles[step] = times > 1 ? .fail(times: times - 1, error: error) : nil
            }
            return trouble
        }
        switch trouble {
        case .fail(_, let error): throw error
        case .cancel: cancellation.cancel()
        case .pause: cancellation.pause()
        case .block, .gather, .until, nil: return
        }
        if !finishes { throw CancellationError() }
    }

    /// A record save listing `parts`: the n-th save is step `.save(n)`.
    func save(parts: [Int]) throws {
        let number = state.withLockedValue { $0.saved.count + 1 }
        try meet(.save(number), logging: "save \(parts.count)", finishes: true)
        state.withLockedValue { $0.saved.append(parts) }
    }

    /// Moves `part`: meets its trouble, reports half of it then all of it, and returns `event`.
    func move<Event: Sendable>(
        _ part: OSSPart, progress: (@Sendable (Int64) -> Void)?, event: Event
    ) async throws -> Event {
        let trouble = state.withLockedValue { state -> Trouble? in
            state.attempts[part.number, default: 0] += 1
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            return state.troubles[.part(part.number)]
        }
        defer { state.withLockedValue { $0.inFlight -= 1 } }
        switch trouble {
        case .block:
            note("part \(part.number)")
            try await Task.sleep(for: .seconds(3_600))
        case .gather(let count):
            note("part \(part.number)")
            while state.withLockedValue({ $0.mostInFlight }) < count {
                try Task.checkCancellation()
                await Task.yield()
            }
        case .until(let condition):
            note("part \(part.number)")
            while !condition() {
                try Task.checkCancellation()
                await Task.yield()
            }
        default:
            try meet(.part(part.number), logging: "part \(part.number)")
        }
        progress?(part.length / 2)
        progress?(part.length)
        return event
    }
}
