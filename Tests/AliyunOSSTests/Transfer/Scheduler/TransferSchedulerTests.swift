@testable import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The scheduler on its own: limits, the memory budget, priorities, cancellation and throttling. Bodies wait on a
/// gate the test opens, and the test waits for the scheduler's counters to reach a state (never for a time).
@Suite("Transfer scheduler: limits, memory, priorities, throttling")
struct TransferSchedulerTests {
    static let mib: Int64 = 1024 * 1024

    @Test("parts in flight never exceed the limit; the rest wait and run as slots free up")
    func partLimit() async throws {
        let scheduler = OSSTransferScheduler(limits: .init(transfers: 4, partsInFlight: 3, memoryBudget: 64 * Self.mib))
        let gate = Gate()
        let concurrent = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    try await scheduler.withPartSlot(priority: .normal, bytes: Self.mib) {
                        concurrent.enter()
                        await gate.wait()
                        concurrent.leave()
                    }
                }
            }
            try await until { scheduler.snapshot.partsInFlight == 3 && scheduler.snapshot.waitingParts == 7 }
            await gate.open()
            try await group.waitForAll()
        }
        #expect(concurrent.peak == 3)
        let end = scheduler.snapshot
        #expect(end.partsInFlight == 0 && end.bufferedBytes == 0 && end.waitingParts == 0)
        #expect(end.peakPartsInFlight == 3)
    }

    @Test("the memory budget holds parts back; a part larger than the budget runs alone")
    func memoryBudget() async throws {
        let scheduler = OSSTransferScheduler(limits: .init(transfers: 4, partsInFlight: 10, memoryBudget: 4 * Self.mib))
        let gate = Gate()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for bytes in [3 * Self.mib, 3 * Self.mib, 10 * Self.mib] {
                group.addTask { try await scheduler.withPartSlot(priority: .normal, bytes: bytes) { await gate.wait() } }
            }
            try await until { scheduler.snapshot.partsInFlight == 1 && scheduler.snapshot.waitingParts == 2 }
            #expect(scheduler.snapshot.bufferedBytes == 3 * Self.mib)
            await gate.open()
            try await group.waitForAll()
        }
        #expect(scheduler.snapshot.peakBufferedBytes == 4 * Self.mib)  // the big part, charged the whole budget
        #expect(scheduler.snapshot.peakPartsInFlight == 1)
    }

    @Test("waiters are served by priority, then in the order they asked")
    func priorities() async throws {
        let scheduler = OSSTransferScheduler(limits: .init(transfers: 1, partsInFlight: 1, memoryBudget: 64 * Self.mib))
        let gate = Gate()
        let order = NameLog()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await scheduler.withPartSlot(priority: .low, bytes: 1) { await gate.wait() } }
            try await until { scheduler.snapshot.partsInFlight == 1 }
            let waiters: [(String, OSSTransferPriority)] = [
                ("low-1", .low), ("normal-1", .normal), ("user-1", .userInitiated), ("low-2", .low),
                ("user-2", .userInitiated),
            ]
            for (index, (name, priority)) in waiters.enumerated() {
                group.addTask {
                    try await scheduler.withPartSlot(priority: priority, bytes: 1) { order.append(name) }
                }
                try await until { scheduler.snapshot.waitingParts == index + 1 }
            }
            await gate.open()
            try await group.waitForAll()
        }
        #expect(order.names == ["user-1", "user-2", "normal-1", "low-1", "low-2"])
    }

    @Test("a cancelled waiter leaves the queue with CancellationError and holds nothing")
    func cancelledWaiter() async throws {
        let scheduler = OSSTransferScheduler(limits: .init(transfers: 1, partsInFlight: 1, memoryBudget: 64 * Self.mib))
        let gate = Gate()
        let holder = Task { try await scheduler.withPartSlot(priority: .normal, bytes: Self.mib) { await gate.wait() } }
        try await until { scheduler.snapshot.partsInFlight == 1 }
        let waiter = Task { try await scheduler.withPartSlot(priority: .normal, bytes: Self.mib) { "ran" } }
        try await until { scheduler.snapshot.waitingParts == 1 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(scheduler.snapshot.waitingParts == 0)
        await gate.open()
        try await holder.value
        #expect(try await scheduler.withPartSlot(priority: .normal, bytes: Self.mib) { "next" } == "next")
        #expect(scheduler.snapshot.partsInFlight == 0 && scheduler.snapshot.bufferedBytes == 0)
    }

    @Test("a transfer cancelled while it waits for its slot still runs when asked to (its machine then stops)")
    func cancelledTransferProceeds() async throws {
        let scheduler = OSSTransferScheduler(limits: .init(transfers: 1, partsInFlight: 1, memoryBudget: 64 * Self.mib))
        let gate = Gate()
        let holder = Task { try await scheduler.withTransferSlot(priority: .normal) { await gate.wait() } }
        try await until { scheduler.snapshot.runningTransfers == 1 }
        let proceeding = Task { try await scheduler.withTransferSlot(priority: .normal, proceedsWhenCancelled: true) { "ran" } }
        let throwing = Task { try await scheduler.withTransferSlot(priority: .normal) { "ran" } }
        try await until { scheduler.snapshot.waitingTransfers == 2 }
        proceeding.cancel()
        throwing.cancel()
        #expect(try await proceeding.value == "ran")
        await #expect(throws: CancellationError.self) { try await throwing.value }
        await gate.open()
        try await holder.value
        #expect(scheduler.snapshot.runningTransfers == 0)
        #expect(scheduler.snapshot.peakRunningTransfers == 1)
    }

    @Test("throttling halves the part limit once per second at most; successful parts raise it again")
    func throttling() async throws {
        let scheduler = OSSTransferScheduler(limits: .init(transfers: 1, partsInFlight: 8, memoryBudget: 64 * Self.mib))
        scheduler.noteThrottled()
        scheduler.noteThrottled()  // the same burst of throttled answers
        #expect(scheduler.snapshot.currentPartLimit == 4)
        #expect(scheduler.snapshot.throttleCuts == 1)
        for _ in 0..<4 { try await scheduler.withPartSlot(priority: .normal, bytes: 1) {} }
        #expect(scheduler.snapshot.currentPartLimit == 5)
        // A failed part does not count.
        _ = try? await scheduler.withPartSlot(priority: .normal, bytes: 1) { throw CancellationError() }
        for _ in 0..<4 { try await scheduler.withPartSlot(priority: .normal, bytes: 1) {} }
        #expect(scheduler.snapshot.currentPartLimit == 5)
        try await scheduler.withPartSlot(priority: .normal, bytes: 1) {}
        #expect(scheduler.snapshot.currentPartLimit == 6)
        for _ in 0..<20 { try await scheduler.withPartSlot(priority: .normal, bytes: 1) {} }
        #expect(scheduler.snapshot.currentPartLimit == 8)  // never above the limit
    }
}

/// Resumable transfers of one client under its scheduler, against the local server.
@Suite("Transfer scheduler: transfers of one client share its limits")
struct TransferSchedulerClientTests {
    @Test("five uploads and five downloads at once stay within the client's transfer and part limits, byte-identical")
    func sharedLimits() async throws {
        let directory = try temporaryURL()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let objects = (0..<5).map { patternBytes(450_000 + $0 * 10_000, seed: UInt64($0) + 40) }
        try await withServerAndClient(configure: {
            $0.transferLimits = OSSTransferLimits(transfers: 2, partsInFlight: 3, memoryBudget: 64 * 1024 * 1024)
        }) { _, client in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, bytes) in objects.enumerated() {
                    let source = directory.appendingPathComponent("up-\(index)")
                    try Data(bytes).write(to: source)
                    group.addTask {
                        _ = try await client.resumableUpload(
                            OSSResumableUploadRequest(
                                bucketName: "bkt", objectKey: "s/\(index)", uploadingFileURL: source, partSize: 102_400,
                                threadNum: 4))
                    }
                }
                try await group.waitForAll()
            }
            let afterUploads = client.scheduler.snapshot
            #expect(afterUploads.peakRunningTransfers == 2)
            #expect(afterUploads.peakPartsInFlight == 3)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in objects.indices {
                    group.addTask {
                        _ = try await client.resumableDownload(
                            OSSResumableDownloadRequest(
                                bucketName: "bkt", objectKey: "s/\(index)",
                                downloadToFileURL: directory.appendingPathComponent("down-\(index)"), partSize: 102_400,
                                threadNum: 4))
                    }
                }
                try await group.waitForAll()
            }
            for (index, bytes) in objects.enumerated() {
                #expect(try Data(contentsOf: directory.appendingPathComponent("down-\(index)")) == Data(bytes))
            }
            let end = client.scheduler.snapshot
            #expect(end.peakRunningTransfers == 2)
            #expect(end.peakPartsInFlight <= 3)
            #expect(end.runningTransfers == 0 && end.partsInFlight == 0 && end.bufferedBytes == 0)
        }
    }

    @Test("a copy-large waits for a transfer slot and copies its parts through part slots: partsInFlight 1 holds")
    func copyLargeScheduled() async throws {
        let bytes = patternBytes(1_000_000, seed: 31)
        try await withServerAndClient(configure: {
            $0.transferLimits = OSSTransferLimits(transfers: 1, partsInFlight: 1, memoryBudget: 64 << 20)
        }) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "source", data: Data(bytes)))
            await server.resetStats()
            let scheduler = client.scheduler
            let gate = Gate()
            let holder = Task { try await scheduler.withTransferSlot(priority: .normal) { await gate.wait() } }
            try await until { scheduler.snapshot.runningTransfers == 1 }
            let copy = Task {
                try await client.copyLargeObject(
                    OSSCopyLargeObjectRequest(
                        sourceBucketName: "bkt", sourceObjectKey: "source", bucketName: "bkt", objectKey: "copy",
                        partSize: 200_000, threadNum: 4))
            }
            // The copy queues behind the transfer holding the only slot, and sends nothing meanwhile.
            try await until { scheduler.snapshot.waitingTransfers == 1 }
            #expect(await server.stats()[.headObject].requests == 0)
            await gate.open()
            try await holder.value
            let result = try await copy.value
            #expect(result.partCount == 5)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPartCopy].requests == 5)
            let snapshot = scheduler.snapshot
            #expect(snapshot.peakRunningTransfers == 1)
            #expect(snapshot.peakPartsInFlight == 1)
            #expect(snapshot.runningTransfers == 0 && snapshot.partsInFlight == 0 && snapshot.waitingParts == 0)
        }
    }

    @Test("a throttled UploadPart lowers the client's part limit; the upload completes")
    func throttledUpload() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(800_000, seed: 9)
        try scratch.write(bytes)
        let rule = LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(2), action: .throttle(milliseconds: 200, code: nil))
        try await withServerAndClient(faults: [rule]) { server, client in
            _ = try await client.resumableUpload(ruRequest("throttled.bin", scratch, record: false, threads: 4))
            #expect(try await ruObject(client, "throttled.bin") == bytes)
            #expect(await server.stats().throttledRequests >= 1)
            #expect(client.scheduler.snapshot.throttleCuts == 1)
        }
    }
}

/// Bodies wait here until the test opens it.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

/// Names in the order bodies ran.
final class NameLog: Sendable {
    private let state = OSSLockedValue<[String]>([])
    var names: [String] { state.withLockedValue { $0 } }
    func append(_ name: String) { state.withLockedValue { $0.append(name) } }
}

/// Counts bodies running at once and the most seen.
final class Counter: Sendable {
    private let state = OSSLockedValue((now: 0, peak: 0))
    var peak: Int { state.withLockedValue { $0.peak } }
    func enter() { state.withLockedValue { $0.now += 1; $0.peak = max($0.peak, $0.now) } }
    func leave() { state.withLockedValue { $0.now -= 1 } }
}

/// Waits until `condition` holds (checked every few milliseconds); records an issue and throws after 30 s.
func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    for _ in 0..<6000 {
        if condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("the condition never held", sourceLocation: sourceLocation)
    throw CancellationError()
}
