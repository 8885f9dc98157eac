@testable import AliyunOSS
import NIOConcurrencyHelpers
import OSSResumable

/// A scripted stand-in for the upload's effects, to test the ``OSSTransferDriver`` itself (the real effects are
/// tested end to end against the local server). It answers every step at once, logs each call in order, and
/// meets the trouble the test scripted for a step: a failure (a number of times), a pause or a cancel (the
/// request's, as a user would), or a part that blocks until it is cancelled.
final class ScriptedUploadEffects: OSSTransferEffects, Sendable {
    typealias Machine = OSSUploadStateMachine

    enum Step: Hashable, Sendable {
        case initiate, listParts, recheck, complete, save(Int), part(Int)
    }

    enum Trouble: Sendable {
        /// Throws `error` this many times, then succeeds.
        case fail(times: Int, error: OSSClientError)
        /// Cancels the request; a request (a step, a part) then throws, a record save still goes through.
        case cancel
        /// Pauses the request, like ``cancel``.
        case pause
        /// A part that waits until the driver cancels it.
        case block
        /// A part that waits until this many parts were in flight at once.
        case gather(Int)
    }

    struct State {
        var log: [String] = []
        var troubles: [Step: Trouble] = [:]
        var saved: [OSSUploadRecord] = []
        var saves = 0
        var attempts: [Int: Int] = [:]
        var inFlight = 0
        var mostInFlight = 0
        var reports: [Int64] = []
    }

    static let networkFailure = OSSClientError(.networkError, "scripted network failure")
    static let uploadId = "scripted-upload"

    let state = NIOLockedValueBox(State())
    let cancellation = OSSTransferCancellation()
    let progress: OSSTransferProgressReporter
    /// What ListParts answers.
    let listed: [Machine.ServerPart]

    init(
        troubles: [Step: Trouble] = [:], granularity: OSSTransferProgressGranularity = .confirmedParts,
        listed: [Machine.ServerPart] = []
    ) {
        let state = self.state
        state.withLockedValue { $0.troubles = troubles }
        progress = OSSTransferProgressReporter(
            handler: { _, total, _ in state.withLockedValue { $0.reports.append(total) } }, granularity: granularity)
        self.listed = listed
    }

    var log: [String] { state.withLockedValue { $0.log } }
    var saved: [OSSUploadRecord] { state.withLockedValue { $0.saved } }
    var reports: [Int64] { state.withLockedValue { $0.reports } }
    var mostInFlight: Int { state.withLockedValue { $0.mostInFlight } }
    func attempts(of part: Int) -> Int { state.withLockedValue { $0.attempts[part] ?? 0 } }

    /// Logs `entry` and meets the trouble scripted for `step`, if any. Returns whether a stop was asked for.
    private func meet(_ step: Step, logging entry: String) throws -> Bool {
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
        case .block, .gather, nil: return false
        }
        return true
    }

    func answer(_ action: Machine.Action, machine: Machine) async throws -> Machine.Event {
        let step: Step
        let event: Machine.Event
        switch action {
        case .initiateUpload: (step, event) = (.initiate, .initiated(uploadId: Self.uploadId))
        case .listParts: (step, event) = (.listParts, .listedParts(listed))
        case .recheckFile: (step, event) = (.recheck, .fileRechecked(machine.fileIdentity!))
        case .complete: (step, event) = (.complete, .completed(serverCRC64: machine.expectedCRC64))
        default: throw OSSClientError(.exceptionCaught, "not scripted: \(action)")
        }
        if try meet(step, logging: "\(step)") { throw CancellationError() }
        return event
    }

    func perform(_ action: Machine.Action) async throws {
        state.withLockedValue { $0.log.append("perform \(action)") }
    }

    func save(_ record: OSSUploadRecord) async throws {
        let number = state.withLockedValue { state in
            state.saves += 1
            return state.saves
        }
        _ = try meet(.save(number), logging: "save \(record.parts.count)")
        state.withLockedValue { $0.saved.append(record) }
    }

    func deleteRecord() { state.withLockedValue { $0.log.append("delete record") } }

    func discardRecord(reason: OSSResumableError) { state.withLockedValue { $0.log.append("discard record") } }

    func partMover(for action: Machine.Action) async throws -> PartMover {
        { part, progress in try await self.move(part, progress: progress) }
    }

    private func move(_ part: OSSPart, progress: (@Sendable (Int64) -> Void)?) async throws -> Machine.Event {
        let trouble = state.withLockedValue { state -> Trouble? in
            state.attempts[part.number, default: 0] += 1
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            return state.troubles[.part(part.number)]
        }
        defer { state.withLockedValue { $0.inFlight -= 1 } }
        switch trouble {
        case .block:
            state.withLockedValue { $0.log.append("part \(part.number)") }
            try await Task.sleep(for: .seconds(3_600))
        case .gather(let count):
            state.withLockedValue { $0.log.append("part \(part.number)") }
            while state.withLockedValue({ $0.mostInFlight }) < count {
                try Task.checkCancellation()
                await Task.yield()
            }
        default:
            if try meet(.part(part.number), logging: "part \(part.number)") { throw CancellationError() }
        }
        progress?(part.length / 2)
        progress?(part.length)
        return .partUploaded(
            uploadId: Self.uploadId, number: part.number, etag: "etag-\(part.number)",
            localCRC64: UInt64(part.number), serverCRC64: UInt64(part.number))
    }

    func failureAnswer(for error: any Error) -> OSSTransferFailureAnswer<Machine.Event> { .failure(.failed) }

    func rank(ofPartFailure error: any Error) -> Int { 0 }
}
