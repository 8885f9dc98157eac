@testable import AliyunOSS
import NIOConcurrencyHelpers
import Testing

/// The byte-progress combiner delivers its reports outside its lock: a handler that re-enters it (or takes
/// its time) cannot deadlock, and the reports still arrive one at a time, in increasing order.
@Suite("transfer byte progress")
struct TransferByteProgressTests {
    @Test func aHandlerThatReentersTheCombinerDoesNotDeadlock() {
        let seen = NIOLockedValueBox<[Int64]>([])
        let combiner = NIOLockedValueBox<OSSTransferByteProgress?>(nil)
        let progress = OSSTransferByteProgress { _, total, _ in
            seen.withLockedValue { $0.append(total) }
            // Re-entering under the old design (the handler ran under the lock) deadlocked here.
            if total == 10, let inner = combiner.withLockedValue({ $0 }) {
                inner.partMoved(number: 2, bytes: 5, length: 100, expected: 300)
            }
        }
        combiner.withLockedValue { $0 = progress }
        progress.partMoved(number: 1, bytes: 10, length: 100, expected: 300)
        progress.partMoved(number: 1, bytes: 40, length: 100, expected: 300)
        #expect(seen.withLockedValue { $0 } == [10, 15, 45])
    }

    @Test func concurrentReportsArriveInIncreasingOrderAndSumToTheTotal() async {
        let seen = NIOLockedValueBox<[(Int64, Int64)]>([])
        let progress = OSSTransferByteProgress { step, total, _ in
            seen.withLockedValue { $0.append((step, total)) }
        }
        await withTaskGroup(of: Void.self) { group in
            for part in 1...8 {
                group.addTask {
                    for moved in stride(from: Int64(1_000), through: 10_000, by: 1_000) {
                        progress.partMoved(number: part, bytes: moved, length: 10_000, expected: 80_000)
                    }
                }
            }
        }
        let reports = seen.withLockedValue { $0 }
        #expect(reports.last?.1 == 80_000)
        #expect(reports.map(\.0).reduce(0, +) == 80_000)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.1 < $1.1 })
    }
}
