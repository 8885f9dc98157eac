/// The decisions of a transfer's part loop, with no I/O: which part starts next within the concurrency limit,
/// whether a failed part is tried again, when the parts stop, which failure decides, when checkpoints are fed and
/// when the background record writer is waited for or its failure taken as the transfer's.
///
/// A value the driver owns and feeds events (a part confirmed or failed, checkpoints arrived, a stop requested,
/// the writer failed, the machine's answer decided the transfer); each returns the ``Action``s to execute, in
/// order. The driver never decides any of this itself: it only starts part tasks, feeds checkpoints and part
/// confirmations to the transfer's state machine, waits for the writer and cancels its children, as told. When
/// every child has ended, ``partsEnded()`` and then ``conclusion`` say how the parts ended.
///
/// Once stopping (a final failure, a requested stop, a decided transfer), no part starts again and the parts in
/// flight are cancelled; the parts that still end are fed as usual. A failure never answers at once: the
/// ``conclusion`` ranks them when all parts have ended.
package struct OSSPartQueue<Failure: Sendable>: Sendable {
    /// What the driver does, in order.
    package enum Action: Sendable, Hashable {
        /// Moves `part` in a new child task (one more attempt of it).
        case startPart(OSSPart)
        /// Adds the child that waits for checkpoints posted by the parts in flight.
        case listenForCheckpoints
        /// Feeds the checkpoints posted so far to the machine, then reports ``checkpointsFed()``.
        case feedCheckpoints
        /// Cancels every child: the parts in flight and the checkpoint listener.
        case cancelChildren
        /// Waits until the background writer is at most one record behind (before a new part starts).
        case catchUpWithWriter
        /// The background writer's failure is the transfer's: feed it to the machine as a failed step.
        case failWithWriterError
    }

    /// What the driver knows of a part's failure (asked of the transfer's effects).
    package struct FailureTraits: Sendable, Hashable {
        /// The part was cancelled or paused rather than failed (Task cancellation, `taskCancelled`, `taskPaused`).
        package var isCancellation: Bool
        /// Worth another attempt (the disposition is retryable).
        package var isRetryable: Bool
        /// Of several failures, the highest rank decides (the first of equals).
        package var rank: Int

        package init(isCancellation: Bool = false, isRetryable: Bool = false, rank: Int = 0) {
            self.isCancellation = isCancellation
            self.isRetryable = isRetryable
            self.rank = rank
        }
    }

    /// How the parts ended, once every child has (``conclusion``).
    package enum Conclusion {
        /// The machine's answer (to a failed step, or its stop) decides: the driver goes on with it.
        case decided
        /// A pause or cancel was requested: a stop, with the first part cancellation seen (if any) as the cause.
        case stopped(Failure?)
        /// The parts failed: this one decides (the worst real failure, else the first cancellation).
        case failed(Failure)
        /// Every part was confirmed: the driver goes on with what the machine asked for after the parts.
        case drained
    }

    /// The most parts in flight at once.
    package let threadNum: Int
    /// How often one part is tried in all.
    package let partAttempts: Int
    /// Whether new parts wait for the background writer (``Action/catchUpWithWriter``).
    package let writerKeepsUp: Bool

    /// Parts waiting to start, in order (a part tried again goes first).
    package private(set) var pending: ArraySlice<OSSPart>
    /// How often each part was started.
    package private(set) var attempts: [Int: Int] = [:]
    /// Parts in child tasks now.
    package private(set) var inFlight = 0
    /// Whether the checkpoint listener is a child now.
    package private(set) var listening = false
    /// No part starts again; the children were cancelled.
    package private(set) var isStopping = false
    /// The machine's answer decided the transfer (a step failed, or the machine stopped).
    package private(set) var isDecided = false
    /// A pause or cancel was requested (sticky, as the requests are).
    package private(set) var stopWasRequested = false
    /// Every child has ended.
    package private(set) var hasEnded = false
    /// The failures of parts not tried again, in the order they came.
    private var failures: [(failure: Failure, traits: FailureTraits)] = []

    /// - Parameters:
    ///   - parts: the parts to move, in order.
    ///   - threadNum: the most parts in flight at once (at least 1).
    ///   - partAttempts: how often one part is tried in all when it fails with a retryable error (at least 1).
    ///   - writerKeepsUp: whether new parts wait for the background record writer.
    package init(parts: [OSSPart], threadNum: Int, partAttempts: Int, writerKeepsUp: Bool = false) {
        pending = parts[...]
        self.threadNum = max(1, threadNum)
        self.partAttempts = max(1, partAttempts)
        self.writerKeepsUp = writerKeepsUp
    }

    // MARK: - Events

    /// The parts begin: start as many as the limit allows, and listen for their checkpoints.
    package mutating func start() -> [Action] {
        fill() + listen()
    }

    /// `part` was confirmed and fed to the machine, which asked for `again` to move (again).
    package mutating func partConfirmed(_ part: OSSPart, again: [OSSPart] = []) -> [Action] {
        inFlight -= 1
        pending.append(contentsOf: again)
        return catchUp()
    }

    /// `part` failed with `failure`. Tried again (first in line) when it is retryable, not a cancellation, has
    /// attempts left and nothing stops the parts; otherwise kept for the ``conclusion`` and the parts stop.
    package mutating func partFailed(_ part: OSSPart, _ failure: Failure, traits: FailureTraits) -> [Action] {
        inFlight -= 1
        var actions: [Action] = []
        if !isStopping, !stopWasRequested, !traits.isCancellation, attempts[part.number, default: 0] < partAttempts,
            traits.isRetryable
        {
            pending.insert(part, at: pending.startIndex)
        } else {
            failures.append((failure, traits))
            actions = stop()
        }
        return actions + catchUp()
    }

    /// The driver is done with a part's end (and waited for the writer if told): start more parts unless
    /// stopping, and let the listener go once nothing is in flight (the children must all end).
    package mutating func partHandled() -> [Action] {
        var actions = isStopping ? [] : fill()
        if inFlight == 0, listening { actions.append(.cancelChildren) }
        return actions
    }

    /// The checkpoint listener answered: feed what was posted, unless the transfer is decided.
    package mutating func checkpointsArrived() -> [Action] {
        listening = false
        return isDecided ? listen() : [.feedCheckpoints]
    }

    /// The driver fed the checkpoints (``Action/feedCheckpoints``): listen again while parts move.
    package mutating func checkpointsFed() -> [Action] {
        listen()
    }

    /// The caller paused or cancelled: stop. Once the parts ended there is nothing left to cancel.
    package mutating func stopRequested() -> [Action] {
        stopWasRequested = true
        return hasEnded ? [] : stop()
    }

    /// The background writer failed. While the parts move, it decides unless they are stopping already (then it
    /// waits for the end); once they ended, it decides unless something else did.
    package mutating func writerFailed() -> [Action] {
        if hasEnded ? isDecided : isStopping { return [] }
        isDecided = true
        return [.failWithWriterError] + (hasEnded ? [] : stop())
    }

    /// The machine's answer decided the transfer (a step failed, or the machine stopped): stop the parts.
    package mutating func transferDecided() -> [Action] {
        isDecided = true
        return hasEnded ? [] : stop()
    }

    /// Every child has ended: feed the checkpoints still posted, unless the transfer is decided.
    package mutating func partsEnded() -> [Action] {
        hasEnded = true
        return isDecided ? [] : [.feedCheckpoints]
    }

    /// How the parts ended; `nil` until every child has (``partsEnded()``, nothing in flight). The machine's
    /// answer first; then a requested stop; then the worst failure (the highest rank, the first of equals; a real
    /// failure before a cancellation that only followed it); then, once every part was confirmed, the end of the
    /// parts.
    package var conclusion: Conclusion? {
        guard hasEnded, inFlight == 0 else { return nil }
        if isDecided { return .decided }
        if stopWasRequested { return .stopped(failures.first { $0.traits.isCancellation }?.failure) }
        var worst: (failure: Failure, rank: Int)?
        for (failure, traits) in failures where !traits.isCancellation {
            if worst == nil || traits.rank > worst!.rank { worst = (failure, traits.rank) }
        }
        if let worst { return .failed(worst.failure) }
        if let first = failures.first { return .failed(first.failure) }
        return pending.isEmpty ? .drained : nil
    }

    // MARK: - Decisions

    /// Starts waiting parts up to the limit.
    private mutating func fill() -> [Action] {
        var actions: [Action] = []
        while inFlight < threadNum, let part = pending.popFirst() {
            inFlight += 1
            attempts[part.number, default: 0] += 1
            actions.append(.startPart(part))
        }
        return actions
    }

    /// Keeps one listener while parts move and nothing stops them.
    private mutating func listen() -> [Action] {
        guard !listening, !isStopping, inFlight > 0 else { return [] }
        listening = true
        return [.listenForCheckpoints]
    }

    /// No part starts again; cancel the children.
    private mutating func stop() -> [Action] {
        guard !isStopping else { return [] }
        isStopping = true
        return [.cancelChildren]
    }

    /// At most the parts that end during one record save may be missing from the record: before another part
    /// starts, a writer that keeps up is waited for.
    private func catchUp() -> [Action] {
        !isStopping && writerKeepsUp && !pending.isEmpty ? [.catchUpWithWriter] : []
    }
}
