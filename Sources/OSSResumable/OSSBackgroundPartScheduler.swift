/// Which parts of a background transfer go to the system next, shared by uploads and downloads.
///
/// A part recorded `queued` that the system still holds (and did not report) is in flight. One recorded
/// `queued` that the system neither holds nor reported never got there (the record was written, then the process
/// died before the submission): it becomes `waiting`. Waiting parts are submitted, in order, while fewer than
/// `maximumQueued` are in flight.
package enum OSSBackgroundPartScheduler {
    package struct Schedule: Sendable, Hashable {
        package var partsToSubmit: [Int]
        package var partsInFlight: [Int]
    }

    /// Updates `states` (indexed like `numbers`) and returns what to submit and what is in flight.
    package static func schedule(
        states: inout [OSSBackgroundPartState], numbers: [Int], reported: Set<Int>, pendingDescriptions: Set<String>,
        maximumQueued: Int
    ) -> Schedule {
        var inFlight: [Int] = []
        for index in states.indices {
            guard case .queued(let description) = states[index], !reported.contains(numbers[index]) else { continue }
            if pendingDescriptions.contains(description) {
                inFlight.append(numbers[index])
            } else {
                states[index] = .waiting
            }
        }
        let room = max(0, maximumQueued - inFlight.count)
        let waiting = states.indices.filter { states[$0] == .waiting }.prefix(room).map { numbers[$0] }
        return Schedule(partsToSubmit: Array(waiting), partsInFlight: inFlight)
    }
}
