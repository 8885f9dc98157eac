@testable import AliyunOSS
import NIOConcurrencyHelpers
import Testing

/// The background record writer of downloads: the latest record wins, nothing is saved out of order, and a
/// failed save is thrown by the next flush.
@Suite("transfer driver: background record writer", .timeLimit(.minutes(1)))
struct TransferRecordWriterTests {
    /// A save that blocks until released, logging what it saved.
    final class Saves: Sendable {
        let saved = NIOLockedValueBox<[Int]>([])
        let gate = OSSTransferCheckpoints<Int>()
        let started = OSSTransferCheckpoints<Int>()
        let failOn: Int?

        init(failOn: Int? = nil) { self.failOn = failOn }

        func save(_ record: Int) async throws {
            if record == 1 {  // the first save is slow: the others pile up behind it
                started.post(1)
                await gate.wait()
            }
            if record == failOn { throw TransferScript.networkFailure }
            saved.withLockedValue { $0.append(record) }
        }
    }

    @Test func recordsSubmittedDuringASlowSaveCollapseIntoTheLatest() async throws {
        let saves = Saves()
        let writer = OSSTransferRecordWriter<Int>(save: saves.save)
        writer.submit(1)
        await saves.started.wait()
        for record in 2...50 { writer.submit(record) }
        saves.gate.post(0)
        try await writer.flush()
        #expect(saves.saved.withLockedValue { $0 } == [1, 50])
        writer.submit(51)
        try await writer.flush()
        #expect(saves.saved.withLockedValue { $0 } == [1, 50, 51])
    }

    @Test func aFailedSaveIsThrownByFlushAndLaterRecordsAreDropped() async {
        let saves = Saves(failOn: 7)
        let writer = OSSTransferRecordWriter<Int>(save: saves.save)
        writer.submit(7)
        await #expect(throws: OSSClientError.self) { try await writer.flush() }
        #expect(writer.failure != nil)
        writer.submit(8)
        await #expect(throws: OSSClientError.self) { try await writer.flush() }
        #expect(saves.saved.withLockedValue { $0 }.isEmpty)
    }

    @Test func catchUpWaitsUntilOnlyTheNewestRecordIsUnsaved() async throws {
        let saves = Saves()
        let writer = OSSTransferRecordWriter<Int>(keepsUp: true, save: saves.save)
        writer.submit(1)
        await saves.started.wait()
        await writer.catchUp()  // only record 1 exists: nothing to wait for
        writer.submit(2)
        writer.submit(3)
        let caughtUp = NIOLockedValueBox(false)
        let waiting = Task {
            await writer.catchUp()  // records 1 and 2 must be saved (or superseded by a saved 3)
            caughtUp.withLockedValue { $0 = true }
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(!caughtUp.withLockedValue { $0 }, "record 1 is still being saved")
        saves.gate.post(0)
        await waiting.value
        #expect(caughtUp.withLockedValue { $0 })
        try await writer.flush()
        #expect(saves.saved.withLockedValue { $0 } == [1, 3])
    }
}
