import OSSResumable

extension OSSTransferDriver {
    /// Moves `parts` as an ``OSSPartQueue`` decides, and executes its actions: starts part tasks (within the
    /// client's scheduler), feeds each confirmation to the machine as it arrives and performs its answer at once
    /// (records are saved in confirmation order), feeds the checkpoints the parts post
    /// (``OSSTransferCheckpoints``, a burst at a time), waits for the background writer
    /// (``OSSTransferRecordWriter``) and cancels the children. Parts the machine asks for again (a CRC
    /// disagreement) join the queue; a waited-on step the machine asks for waits until the parts drained.
    ///
    /// The driver tells the queue what happened (a part confirmed or failed, checkpoints arrived, a pause or
    /// cancel requested, the writer failed, the machine's answer decided) and never decides itself which part
    /// starts, whether a part is tried again, when the parts stop or which failure counts.
    ///
    /// Returns the actions that follow.
    func transfer(_ parts: [OSSPart], mover: @escaping Effects.PartMover) async -> [Action] {
        let progress = effects.progress
        let expected = machine.expectedBytes
        let checkpoints = OSSTransferCheckpoints<Machine.Event>()
        let writer = effects.backgroundWriter()
        let post: @Sendable (Machine.Event) -> Void = { checkpoints.post($0) }
        var queue = OSSPartQueue<any Error>(
            parts: parts, threadNum: threadNum, partAttempts: partAttempts, writerKeepsUp: writer?.keepsUp ?? false)
        /// A waited-on step asked for by the last confirmation, and what follows it: run once the parts drained.
        var deferred: [Action] = []
        /// The machine's answer to a step that failed while parts were moving.
        var answer: [Action]?
        /// The error of the writer's failed save, when the flush at the end threw it.
        var writerError: (any Error)?
        await withTaskGroup(of: OSSTransferPartAnswer<Machine.Event>?.self) { group in
            /// Executes the queue's actions, in order.
            func execute(_ actions: [OSSPartQueue<any Error>.Action]) async {
                for action in actions {
                    switch action {
                    case .startPart(let part):
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
                    case .listenForCheckpoints:
                        group.addTask {
                            await checkpoints.wait()
                            return nil
                        }
                    case .feedCheckpoints:
                        if let failed = await feedCheckpoints(checkpoints.drain(), writer: writer) { answer = failed }
                        if answer != nil || outcome != nil { await execute(queue.transferDecided()) }
                        await execute(queue.checkpointsFed())
                    case .cancelChildren:
                        group.cancelAll()
                    case .catchUpWithWriter:
                        await writer?.catchUp()
                    case .failWithWriterError:
                        if let failure = writerError ?? writer?.failure { answer = fail(failure) }
                    }
                }
            }
            await execute(queue.start())
            while let next = await group.next() {
                guard let finished = next else {
                    await execute(queue.checkpointsArrived())
                    continue
                }
                let part = finished.part
                switch finished.result {
                case .success(let event):
                    let actions = handle(event)
                    // A confirmed part counts through the machine's total from now on; a part sent again keeps its
                    // high-water mark, so its second sending is not counted twice.
                    if !Self.movesAgain(actions, number: part.number) { progress.partConfirmed(number: part.number) }
                    var again: [OSSPart] = []
                    for (index, action) in actions.enumerated() {
                        switch Machine.step(for: action) {
                        case .transferParts(let parts):
                            again += parts
                        case .ask:
                            deferred = Array(actions[index...])
                        default:
                            if let failed = await localWhileMoving(action, writer: writer) { answer = failed }
                        }
                        if !deferred.isEmpty || answer != nil || outcome != nil { break }
                    }
                    if answer != nil || outcome != nil { await execute(queue.transferDecided()) }
                    await execute(queue.partConfirmed(part, again: again))
                case .failure(let error):
                    if isStopping { await execute(queue.stopRequested()) }
                    let traits = OSSPartQueue<any Error>.FailureTraits(
                        isCancellation: error.isTransferCancellation, isRetryable: effects.isRetryable(partFailure: error),
                        rank: effects.rank(ofPartFailure: error))
                    await execute(queue.partFailed(part, error, traits: traits))
                }
                if writer?.failure != nil { await execute(queue.writerFailed()) }
                if isStopping { await execute(queue.stopRequested()) }
                await execute(queue.partHandled())
            }
            await execute(queue.partsEnded())
            if let writer {
                do {
                    try await writer.flush()
                } catch {
                    writerError = error
                    await execute(queue.writerFailed())
                }
            }
            if isStopping { await execute(queue.stopRequested()) }
        }
        switch queue.conclusion {
        case .decided, nil:
            // (`nil`: parts still waiting although nothing stopped them, which the queue never leaves: the run
            // ends without a result, as `operationFailed`.)
            return outcome != nil ? [] : answer ?? []
        case .stopped(let cancellation):
            // Parts cancelled after another part failed report cancellation too: only the caller's pause or
            // cancel (of this task, or by the request) counts as a stop.
            return fail(cancellation ?? CancellationError())
        case .failed(let worst):
            return fail(worst)
        case .drained:
            return deferred
        }
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
