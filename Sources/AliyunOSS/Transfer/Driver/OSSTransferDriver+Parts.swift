import OSSResumable

extension OSSTransferDriver {
    /// Moves `parts` with at most ``threadNum`` in flight, feeding each confirmation to the machine as it arrives
    /// and performing its answer at once (records are saved in confirmation order). Parts the machine asks for
    /// again (a CRC disagreement) join the queue; a part that fails with a retryable error is tried again, up to
    /// ``partAttempts`` times in all. A waited-on step the machine asks for waits until the parts drained.
    ///
    /// Checkpoints the parts post while they move (``OSSTransferCheckpoints``) are fed to the machine as they come,
    /// a burst at a time. With the effects' background writer (``OSSTransferRecordWriter``) the records the machine
    /// asks for are saved behind the parts, the latest one winning; a failed save stops the parts. Checkpoints still
    /// posted when the parts ended are fed before a stop, so a paused or failed transfer keeps them.
    ///
    /// The first failure (or a pause or cancel) stops new parts and cancels the ones in flight; parts that still
    /// finish are fed to the machine. Then the failure decides: a stop, or the worst part failure
    /// (``OSSTransferEffects/rank(ofPartFailure:)``).
    ///
    /// Returns the actions that follow.
    func transfer(_ parts: [OSSPart], mover: @escaping Effects.PartMover) async -> [Action] {
        let progress = effects.progress
        let expected = machine.expectedBytes
        let limit = threadNum
        var queue = parts[...]
        var attempts: [Int: Int] = [:]
        var failures: [any Error] = []
        /// A waited-on step asked for by the last confirmation, and what follows it: run once the parts drained.
        var deferred: [Action] = []
        /// The machine's answer to a step that failed while parts were moving.
        var answer: [Action]?
        let checkpoints = OSSTransferCheckpoints<Machine.Event>()
        let writer = effects.backgroundWriter()
        let post: @Sendable (Machine.Event) -> Void = { checkpoints.post($0) }
        await withTaskGroup(of: OSSTransferPartAnswer<Machine.Event>?.self) { group in
            var inFlight = 0
            var stopping = false
            var listening = false
            func startNext() {
                guard let part = queue.popFirst() else { return }
                inFlight += 1
                attempts[part.number, default: 0] += 1
                let callback = progress.callback(for: part, expected: expected)
                group.addTask { [admission] in
                    do {
                        let event =
                            if let admission {
                                try await admission.scheduler.withPartSlot(
                                    priority: admission.priority, bytes: admission.bytes(part)
                                ) { try await mover(part, callback, post) }
                            } else {
                                try await mover(part, callback, post)
                            }
                        return OSSTransferPartAnswer(part: part, result: .success(event))
                    } catch {
                        return OSSTransferPartAnswer(part: part, result: .failure(error))
                    }
                }
            }
            /// Keeps one child waiting for checkpoints while parts move (it answers `nil`).
            func listen() {
                guard !listening, !stopping, inFlight > 0 else { return }
                listening = true
                group.addTask {
                    await checkpoints.wait()
                    return nil
                }
            }
            func stop() {
                guard !stopping else { return }
                stopping = true
                group.cancelAll()
            }
            while inFlight < limit, !queue.isEmpty { startNext() }
            listen()
            while let next = await group.next() {
                guard let finished = next else {
                    listening = false
                    if answer == nil, outcome == nil,
                        let failed = await feedCheckpoints(checkpoints.drain(), writer: writer)
                    {
                        answer = failed
                        stop()
                    }
                    listen()
                    continue
                }
                inFlight -= 1
                let number = finished.part.number
                switch finished.result {
                case .success(let event):
                    let actions = handle(event)
                    // A confirmed part counts through the machine's total from now on; a part sent again keeps its
                    // high-water mark, so its second sending is not counted twice.
                    if !Self.movesAgain(actions, number: number) { progress.partConfirmed(number: number) }
                    for (index, action) in actions.enumerated() {
                        switch Machine.step(for: action) {
                        case .transferParts(let again):
                            queue.append(contentsOf: again)
                        case .ask:
                            deferred = Array(actions[index...])
                        default:
                            answer = await localWhileMoving(action, writer: writer)
                        }
                        if !deferred.isEmpty || answer != nil || outcome != nil { break }
                    }
                    if answer != nil || outcome != nil { stop() }
                case .failure(let error):
                    if !stopping, !isStopping, !error.isTransferCancellation, attempts[number, default: 0] < partAttempts,
                        effects.isRetryable(partFailure: error)
                    {
                        queue.insert(finished.part, at: queue.startIndex)
                    } else {
                        failures.append(error)
                        stop()
                    }
                }
                if !stopping, let writer {
                    // At most the parts that finish during one save may be missing from the record.
                    if writer.keepsUp, !queue.isEmpty { await writer.catchUp() }
                    if answer == nil, outcome == nil, let failure = writer.failure {
                        answer = fail(failure)
                        stop()
                    }
                }
                if !stopping {
                    if isStopping {
                        stop()
                    } else {
                        while inFlight < limit, !queue.isEmpty { startNext() }
                    }
                }
                // The listener must not outlive the parts (the group waits for it); no part starts after this.
                if inFlight == 0, listening { group.cancelAll() }
            }
        }
        if answer == nil, outcome == nil, let failed = await feedCheckpoints(checkpoints.drain(), writer: writer) {
            answer = failed
        }
        if let writer {
            do {
                try await writer.flush()
            } catch {
                if answer == nil, outcome == nil { answer = fail(error) }
            }
        }
        if outcome != nil { return [] }
        if let answer { return answer }
        // Parts cancelled by `cancelAll()` after another part failed report cancellation too: only the caller's
        // pause or cancel (of this task, or by the request) counts as a stop.
        if isStopping { return fail(failures.first(where: \.isTransferCancellation) ?? CancellationError()) }
        let real = failures.filter { !$0.isTransferCancellation }
        if let worst = worst(of: real) ?? failures.first { return fail(worst) }
        return deferred
    }

    /// Feeds checkpoints to the machine and performs its answers. Returns the machine's answer when a step failed.
    private func feedCheckpoints(
        _ events: [Machine.Event], writer: OSSTransferRecordWriter<Machine.Record>?
    ) async -> [Action]? {
        for action in events.flatMap({ handle($0) }) {
            if let failed = await localWhileMoving(action, writer: writer) { return failed }
            if outcome != nil { return nil }
        }
        return nil
    }

    /// Performs a local action while parts move. With a background `writer`, a record save is handed to it and
    /// not waited for, and any other step but progress first waits until the saves are done (a commit or a
    /// removal must not race a save); a failed save is the step's failure.
    private func localWhileMoving(_ action: Action, writer: OSSTransferRecordWriter<Machine.Record>?) async -> [Action]? {
        guard let writer else { return await local(action) }
        switch Machine.step(for: action) {
        case .saveRecord(let record):
            writer.submit(record)
            return nil
        case .reportProgress:
            return await local(action)
        default:
            do {
                try await writer.flush()
            } catch {
                return fail(error)
            }
            return await local(action)
        }
    }

    /// The failure with the highest rank, the first of equals.
    private func worst(of failures: [any Error]) -> (any Error)? {
        var best: (error: any Error, rank: Int)?
        for error in failures {
            let rank = effects.rank(ofPartFailure: error)
            if best == nil || rank > best!.rank { best = (error, rank) }
        }
        return best?.error
    }

    /// Whether `actions` move part `number` again.
    static func movesAgain(_ actions: [Action], number: Int) -> Bool {
        actions.contains { action in
            if case .transferParts(let parts) = Machine.step(for: action) {
                parts.contains { $0.number == number }
            } else {
                false
            }
        }
    }
}

/// What one part's child task of the ``OSSTransferDriver`` ended with: the machine's event, or the error.
struct OSSTransferPartAnswer<Event: Sendable>: Sendable {
    let part: OSSPart
    let result: Result<Event, any Error>
}
