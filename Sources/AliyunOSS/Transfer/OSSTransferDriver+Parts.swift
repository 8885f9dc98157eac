import OSSResumable

extension OSSTransferDriver {
    /// Moves `parts` with at most ``threadNum`` in flight, feeding each confirmation to the machine as it arrives
    /// and performing its answer at once (records are saved in confirmation order). Parts the machine asks for
    /// again (a CRC disagreement) join the queue; a part that fails with a retryable error is tried again, up to
    /// ``partAttempts`` times in all. A waited-on step the machine asks for waits until the parts drained.
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
        await withTaskGroup(of: OSSTransferPartAnswer<Machine.Event>.self) { group in
            var inFlight = 0
            var stopping = false
            func startNext() {
                guard let part = queue.popFirst() else { return }
                inFlight += 1
                attempts[part.number, default: 0] += 1
                let callback = progress.callback(for: part, expected: expected)
                group.addTask {
                    do {
                        return OSSTransferPartAnswer(part: part, result: .success(try await mover(part, callback)))
                    } catch {
                        return OSSTransferPartAnswer(part: part, result: .failure(error))
                    }
                }
            }
            func stop() {
                guard !stopping else { return }
                stopping = true
                group.cancelAll()
            }
            while inFlight < limit, !queue.isEmpty { startNext() }
            while let finished = await group.next() {
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
                            answer = await local(action)
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
                if !stopping {
                    if isStopping {
                        stop()
                    } else {
                        while inFlight < limit, !queue.isEmpty { startNext() }
                    }
                }
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
