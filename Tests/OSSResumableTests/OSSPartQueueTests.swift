import OSSResumable
import Testing

/// The part queue decided purely, as a connection pool's state machine is tested: events in, actions out, no
/// tasks, no clock, no I/O. Each test feeds the events the driver would and checks every action it gets back.
@Suite("Part queue: decisions of the part loop")
struct OSSPartQueueTests {
    typealias Queue = OSSPartQueue<String>
    typealias Traits = Queue.FailureTraits

    static let transient = Traits(isRetryable: true, rank: 0)
    static let final = Traits(isRetryable: false, rank: 1)
    static let cancellation = Traits(isCancellation: true)

    /// Parts 1...count of 100 bytes each.
    static func parts(_ count: Int) -> [OSSPart] {
        count == 0 ? [] : (1...count).map { OSSPart(number: $0, offset: Int64($0 - 1) * 100, length: 100) }
    }

    static func part(_ number: Int) -> OSSPart { OSSPart(number: number, offset: Int64(number - 1) * 100, length: 100) }

    static func starts(_ numbers: Int...) -> [Queue.Action] { numbers.map { .startPart(part($0)) } }

    /// What a conclusion is, for comparing.
    static func name(_ conclusion: Queue.Conclusion?) -> String {
        switch conclusion {
        case nil: "none"
        case .decided: "decided"
        case .stopped(let cause): "stopped(\(cause ?? "-"))"
        case .failed(let failure): "failed(\(failure))"
        case .drained: "drained"
        }
    }

    // MARK: - Starting within the limit

    @Test(
        "start moves as many parts as the limit allows, and listens only while parts move",
        arguments: [(1, 3), (2, 3), (4, 3), (3, 0)])
    func startWithinTheLimit(threadNum: Int, count: Int) {
        var queue = Queue(parts: Self.parts(count), threadNum: threadNum, partAttempts: 1)
        let started = min(threadNum, count)
        let expected = Self.parts(started).map { Queue.Action.startPart($0) } + (started > 0 ? [.listenForCheckpoints] : [])
        #expect(queue.start() == expected)
        #expect(queue.inFlight == started)
        #expect(Array(queue.pending) == Array(Self.parts(count).dropFirst(started)))
    }

    @Test("a confirmed part makes room for the next, never more than the limit")
    func confirmedPartStartsTheNext() {
        var queue = Queue(parts: Self.parts(4), threadNum: 2, partAttempts: 1)
        #expect(queue.start() == Self.starts(1, 2) + [.listenForCheckpoints])
        #expect(queue.partConfirmed(Self.part(2)) == [])
        #expect(queue.partHandled() == Self.starts(3))
        #expect(queue.inFlight == 2)
        #expect(queue.partConfirmed(Self.part(1)) == [])
        #expect(queue.partHandled() == Self.starts(4))
        #expect(queue.partConfirmed(Self.part(3)) == [])
        #expect(queue.partHandled() == [])
        #expect(queue.partConfirmed(Self.part(4)) == [])
        // Nothing in flight: the listener is let go, so the children all end.
        #expect(queue.partHandled() == [.cancelChildren])
        #expect(queue.partsEnded() == [.feedCheckpoints])
        #expect(Self.name(queue.conclusion) == "drained")
    }

    @Test("parts the machine asks for again go to the end of the line, one more attempt each")
    func partsAskedForAgain() {
        var queue = Queue(parts: Self.parts(2), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        #expect(queue.partConfirmed(Self.part(1), again: [Self.part(1)]) == [])
        #expect(Array(queue.pending) == [Self.part(2), Self.part(1)])
        #expect(queue.partHandled() == Self.starts(2))
        #expect(queue.confirm(2) == Self.starts(1))
        #expect(queue.attempts[1] == 2)
    }

    // MARK: - Retries

    @Test("a retryable failure is tried again first in line, up to the attempts allowed, then fails")
    func retryableFailureThenRetry() {
        var queue = Queue(parts: Self.parts(3), threadNum: 1, partAttempts: 3)
        _ = queue.start()
        for attempt in 1...2 {
            #expect(queue.partFailed(Self.part(1), "net \(attempt)", traits: Self.transient) == [])
            #expect(queue.partHandled() == Self.starts(1))
        }
        #expect(queue.attempts[1] == 3)
        // The third attempt was the last: the parts stop.
        #expect(queue.partFailed(Self.part(1), "net 3", traits: Self.transient) == [.cancelChildren])
        #expect(queue.partHandled() == [.cancelChildren])
        #expect(queue.attempts[2] == nil)
        #expect(queue.partsEnded() == [.feedCheckpoints])
        #expect(Self.name(queue.conclusion) == "failed(net 3)")
    }

    /// Whether a failed part is tried again: only a retryable failure that is not a cancellation, with attempts
    /// left, while nothing stops the parts.
    @Test(
        "retry decision",
        arguments: [
            // (retryable, cancellation, attempts allowed, stop requested, tried again)
            (true, false, 2, false, true),
            (false, false, 2, false, false),
            (true, true, 2, false, false),
            (true, false, 1, false, false),
            (true, false, 2, true, false),
        ])
    func retryDecision(retryable: Bool, cancellation: Bool, allowed: Int, stop: Bool, retried: Bool) {
        var queue = Queue(parts: Self.parts(2), threadNum: 1, partAttempts: allowed)
        _ = queue.start()
        if stop { _ = queue.stopRequested() }
        let traits = Traits(isCancellation: cancellation, isRetryable: retryable)
        _ = queue.partFailed(Self.part(1), "boom", traits: traits)
        #expect(queue.isStopping == !retried)
        #expect(queue.partHandled() == (retried ? Self.starts(1) : [.cancelChildren]))
    }

    // MARK: - Stopping

    @Test("a final failure stops new starts and waits for the parts in flight, which are still fed")
    func finalFailureWaitsForInFlight() {
        var queue = Queue(parts: Self.parts(4), threadNum: 2, partAttempts: 3)
        _ = queue.start()
        #expect(queue.partFailed(Self.part(1), "refused", traits: Self.final) == [.cancelChildren])
        // Part 2 is still in flight: no new part, and the listener stays.
        #expect(queue.partHandled() == [])
        #expect(queue.inFlight == 1)
        #expect(queue.conclusion == nil)
        #expect(queue.partConfirmed(Self.part(2)) == [])
        #expect(queue.partHandled() == [.cancelChildren])
        #expect(Array(queue.pending) == [Self.part(3), Self.part(4)])
        #expect(queue.conclusion == nil, "no conclusion before every child ended")
        #expect(queue.partsEnded() == [.feedCheckpoints])
        #expect(Self.name(queue.conclusion) == "failed(refused)")
    }

    @Test("a cancel stops the parts; their cancellations end it as a stop with the first as its cause")
    func cancel() {
        var queue = Queue(parts: Self.parts(4), threadNum: 2, partAttempts: 3)
        _ = queue.start()
        #expect(queue.stopRequested() == [.cancelChildren])
        #expect(queue.stopRequested() == [], "cancelled once")
        #expect(queue.partFailed(Self.part(2), "cancelled 2", traits: Self.cancellation) == [])
        #expect(queue.partHandled() == [])
        #expect(queue.partFailed(Self.part(1), "cancelled 1", traits: Self.cancellation) == [])
        #expect(queue.partHandled() == [.cancelChildren])
        _ = queue.partsEnded()
        #expect(Self.name(queue.conclusion) == "stopped(cancelled 2)")
    }

    @Test("a pause while a part fails: the part is not tried again, and the stop outranks its failure")
    func pause() {
        var queue = Queue(parts: Self.parts(3), threadNum: 1, partAttempts: 3)
        _ = queue.start()
        _ = queue.stopRequested()
        #expect(queue.partFailed(Self.part(1), "net", traits: Self.transient) == [])
        #expect(queue.partHandled() == [.cancelChildren])
        #expect(queue.attempts[1] == 1)
        _ = queue.partsEnded()
        #expect(Self.name(queue.conclusion) == "stopped(-)")
    }

    @Test("a stop asked for once the parts ended cancels nothing but still ends them as a stop")
    func stopAfterTheEnd() {
        var queue = Queue(parts: Self.parts(1), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        _ = queue.confirm(1)
        _ = queue.partsEnded()
        #expect(queue.stopRequested() == [])
        #expect(Self.name(queue.conclusion) == "stopped(-)")
    }

    @Test("the machine's answer decides over a stop and over the parts' failures")
    func decidedWins() {
        var queue = Queue(parts: Self.parts(3), threadNum: 2, partAttempts: 1)
        _ = queue.start()
        _ = queue.partFailed(Self.part(1), "refused", traits: Self.final)
        #expect(queue.transferDecided() == [], "already stopping")
        _ = queue.stopRequested()
        _ = queue.confirm(2)
        #expect(queue.partsEnded() == [], "no checkpoints fed once decided")
        #expect(Self.name(queue.conclusion) == "decided")
    }

    @Test("a decided transfer stops the parts at once")
    func decidedStops() {
        var queue = Queue(parts: Self.parts(3), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        #expect(queue.transferDecided() == [.cancelChildren])
        #expect(queue.partConfirmed(Self.part(1)) == [])
        #expect(queue.partHandled() == [.cancelChildren])
        #expect(queue.attempts[2] == nil)
    }

    // MARK: - Checkpoints and the record writer

    @Test("checkpoints are fed as they arrive, and listened for again only while parts move")
    func checkpointCadence() {
        var queue = Queue(parts: Self.parts(2), threadNum: 1, partAttempts: 1)
        #expect(queue.start() == Self.starts(1) + [.listenForCheckpoints])
        #expect(queue.checkpointsArrived() == [.feedCheckpoints])
        #expect(queue.checkpointsFed() == [.listenForCheckpoints])
        #expect(queue.checkpointsFed() == [], "one listener at a time")
        #expect(queue.confirm(1) == Self.starts(2))
        #expect(queue.confirm(2) == [.cancelChildren])
        // The cancelled listener answers: what was posted is still fed, but nobody listens again.
        #expect(queue.checkpointsArrived() == [.feedCheckpoints])
        #expect(queue.checkpointsFed() == [])
        #expect(queue.partsEnded() == [.feedCheckpoints])
    }

    @Test("once decided, arriving checkpoints are not fed")
    func checkpointsAfterDecided() {
        var queue = Queue(parts: Self.parts(2), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        _ = queue.transferDecided()
        #expect(queue.checkpointsArrived() == [])
    }

    @Test(
        "a writer that keeps up is caught up with before another part starts, and only then",
        arguments: [(true, 3, true), (false, 3, false), (true, 1, false)])
    func writerCatchUp(keepsUp: Bool, count: Int, catchesUp: Bool) {
        var queue = Queue(parts: Self.parts(count), threadNum: 1, partAttempts: 2, writerKeepsUp: keepsUp)
        _ = queue.start()
        #expect(queue.partConfirmed(Self.part(1)) == (catchesUp ? [.catchUpWithWriter] : []))
    }

    @Test("a retried part waits for a writer that keeps up too; a stopping queue does not wait")
    func writerCatchUpOnFailure() {
        var queue = Queue(parts: Self.parts(1), threadNum: 1, partAttempts: 2, writerKeepsUp: true)
        _ = queue.start()
        #expect(queue.partFailed(Self.part(1), "net", traits: Self.transient) == [.catchUpWithWriter])
        _ = queue.partHandled()
        #expect(queue.partFailed(Self.part(1), "net", traits: Self.transient) == [.cancelChildren])
    }

    @Test("a writer failure while parts move decides and stops them, once")
    func writerFailureWhileMoving() {
        var queue = Queue(parts: Self.parts(3), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        _ = queue.partConfirmed(Self.part(1))
        #expect(queue.writerFailed() == [.failWithWriterError, .cancelChildren])
        #expect(queue.writerFailed() == [], "taken once")
        #expect(queue.partHandled() == [.cancelChildren])
        #expect(queue.partsEnded() == [])
        #expect(Self.name(queue.conclusion) == "decided")
    }

    @Test("a writer failure while stopping for a part's failure waits for the end, where it decides")
    func writerFailureWhileStopping() {
        var queue = Queue(parts: Self.parts(2), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        _ = queue.partFailed(Self.part(1), "refused", traits: Self.final)
        #expect(queue.writerFailed() == [])
        _ = queue.partHandled()
        _ = queue.partsEnded()
        #expect(Self.name(queue.conclusion) == "failed(refused)")
        #expect(queue.writerFailed() == [.failWithWriterError])
        #expect(Self.name(queue.conclusion) == "decided")
    }

    @Test("a writer failure at the end does not override the machine's answer")
    func writerFailureAfterDecided() {
        var queue = Queue(parts: Self.parts(1), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        _ = queue.transferDecided()
        _ = queue.confirm(1)
        _ = queue.partsEnded()
        #expect(queue.writerFailed() == [])
    }

    // MARK: - Ranking failures

    /// Several parts in flight fail; the conclusion names the one that decides.
    @Test(
        "failure ranking",
        arguments: [
            // The first real failure stops the others, which report cancellation: the real one decides.
            ([("net", transient), ("c1", cancellation), ("c2", cancellation)], "failed(net)"),
            // A cancellation first (a child cancelled by another's stop) does not hide a real failure after it.
            ([("c1", cancellation), ("net", transient)], "failed(net)"),
            // The higher rank decides...
            ([("net", transient), ("gone", final), ("net2", transient)], "failed(gone)"),
            // ... the first of equals.
            ([("a", final), ("b", final)], "failed(a)"),
            // Only cancellations, with no stop asked for: the first.
            ([("c1", cancellation), ("c2", cancellation)], "failed(c1)"),
        ] as [([(String, Traits)], String)])
    func failureRanking(failures: [(String, Traits)], expected: String) {
        var queue = Queue(parts: Self.parts(failures.count), threadNum: failures.count, partAttempts: 1)
        _ = queue.start()
        for (index, (failure, traits)) in failures.enumerated() {
            _ = queue.fail(index + 1, failure, traits)
        }
        _ = queue.partsEnded()
        #expect(Self.name(queue.conclusion) == expected)
    }

    @Test("a requested stop outranks every failure")
    func stopOutranksFailures() {
        var queue = Queue(parts: Self.parts(2), threadNum: 2, partAttempts: 1)
        _ = queue.start()
        _ = queue.partFailed(Self.part(1), "gone", traits: Self.final)
        _ = queue.stopRequested()
        _ = queue.partFailed(Self.part(2), "cancelled", traits: Self.cancellation)
        _ = queue.partHandled()
        _ = queue.partsEnded()
        #expect(Self.name(queue.conclusion) == "stopped(cancelled)")
    }

    // MARK: - Completion

    @Test("the parts end drained only when every part was confirmed and nothing is in flight")
    func completionOnlyWhenAllPartsDone() {
        var queue = Queue(parts: Self.parts(3), threadNum: 3, partAttempts: 1)
        _ = queue.start()
        _ = queue.confirm(1)
        _ = queue.confirm(3)
        #expect(queue.conclusion == nil)
        #expect(queue.confirm(2) == [.cancelChildren])
        #expect(queue.conclusion == nil, "not before the children ended")
        _ = queue.partsEnded()
        #expect(Self.name(queue.conclusion) == "drained")
    }

    @Test("parts ended with parts still waiting (nothing stopped them) are no completion")
    func endedWithPartsWaiting() {
        var queue = Queue(parts: Self.parts(2), threadNum: 1, partAttempts: 1)
        _ = queue.start()
        _ = queue.partConfirmed(Self.part(1))
        _ = queue.partsEnded()
        #expect(queue.conclusion == nil)
    }
}

extension OSSPartQueue {
    /// The driver's two calls for a confirmed part: confirmed, then handled. Returns the handling's actions.
    mutating func confirm(_ number: Int) -> [Action] {
        _ = partConfirmed(OSSPartQueueTests.part(number))
        return partHandled()
    }

    /// The driver's two calls for a failed part: failed, then handled. Returns the handling's actions.
    mutating func fail(_ number: Int, _ failure: Failure, _ traits: FailureTraits) -> [Action] {
        _ = partFailed(OSSPartQueueTests.part(number), failure, traits: traits)
        return partHandled()
    }
}
