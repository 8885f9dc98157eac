import OSSResumable

/// Who waits first when transfers or parts queue for the ``OSSTransferScheduler``: a higher priority is served
/// before a lower one; equal priorities in the order they asked.
public enum OSSTransferPriority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    /// Batches the user is not waiting for (a directory sync, a prefetch).
    case low = 0
    /// The default of a single transfer.
    case normal = 1
    /// What the user just asked for and is watching: served before queued batches.
    case userInitiated = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The limits of an ``OSSTransferScheduler``: how many transfers run at once, how many parts are in flight across
/// all of them, and how many bytes their transfer buffers may hold together.
public struct OSSTransferLimits: Sendable, Hashable {
    /// Transfers (resumable uploads and downloads, and the single requests of a directory transfer) running at
    /// once; more wait their turn.
    public var transfers: Int
    /// Parts in flight across every transfer of the client. A transfer's own `threadNum` still caps its share.
    public var partsInFlight: Int
    /// Bytes the parts in flight may hold in memory together. A part streamed from or to a file holds at most
    /// ``streamedPartBuffer`` bytes; a part buffered whole (an upload from a stream) holds its length. A single
    /// part larger than the budget runs alone.
    public var memoryBudget: Int64

    /// What a part streamed from or to a file is charged against ``memoryBudget``: the transport's chunks in
    /// flight for one request (at most this much, less for a smaller part).
    public static let streamedPartBuffer: Int64 = 2 * 1024 * 1024

    /// - Parameters are clamped to at least 1 (transfers, parts) and 1 MiB (memory).
    public init(transfers: Int, partsInFlight: Int, memoryBudget: Int64) {
        self.transfers = max(1, transfers)
        self.partsInFlight = max(1, partsInFlight)
        self.memoryBudget = max(1024 * 1024, memoryBudget)
    }

    /// The default of this platform: small on watchOS and on iOS, tvOS and visionOS (an app's memory is limited
    /// and the radio is shared), larger on macOS and Linux.
    public static var platformDefault: OSSTransferLimits {
        #if os(watchOS)
        OSSTransferLimits(transfers: 1, partsInFlight: 2, memoryBudget: 8 * 1024 * 1024)
        #elseif os(iOS) || os(tvOS) || os(visionOS)
        OSSTransferLimits(transfers: 4, partsInFlight: 8, memoryBudget: 32 * 1024 * 1024)
        #else
        OSSTransferLimits(transfers: 16, partsInFlight: 32, memoryBudget: 256 * 1024 * 1024)
        #endif
    }
}

/// One scheduler for every transfer of a client (``OSSClient/scheduler``): resumable uploads and downloads, the
/// transfers an ``OSSTransferManager`` resumes, directory transfers and streams all queue here for a transfer
/// slot and, part by part, for a part slot and the bytes of its buffer (``OSSTransferLimits``).
///
/// Waiters are served by ``OSSTransferPriority``, then in the order they asked; a part that does not fit the memory
/// left holds back the parts behind it of its priority and below, so a big part is not starved by small ones.
///
/// When OSS throttles the client (503 with `x-oss-qos-delay-time` or `Retry-After`, or 429), the client pauses
/// every request for the delay asked (``OSSClientConfiguration/RetryConfiguration/maxServerDelay``) and the scheduler
/// halves the parts it lets into flight (at most once a second); each run of successful parts as long as the
/// current limit raises it by one again, up to ``OSSTransferLimits/partsInFlight``. A throttled server therefore sees
/// fewer requests, not a retry storm.
///
/// Thread-safe; waiting for a slot is cancellable (the waiter leaves the queue and throws `CancellationError`).
public final class OSSTransferScheduler: Sendable {
    /// What the scheduler holds and who waits, at one moment.
    public struct Snapshot: Sendable, Hashable {
        public let limits: OSSTransferLimits
        /// The parts let into flight now: ``OSSTransferLimits/partsInFlight``, or less after throttling.
        public let currentPartLimit: Int
        public let runningTransfers: Int
        public let partsInFlight: Int
        /// Bytes charged against ``OSSTransferLimits/memoryBudget`` by the parts in flight.
        public let bufferedBytes: Int64
        public let waitingTransfers: Int
        public let waitingParts: Int
        /// The most transfers, parts in flight and bytes charged at once since the scheduler was made.
        public let peakRunningTransfers: Int
        public let peakPartsInFlight: Int
        public let peakBufferedBytes: Int64
        /// How often throttling lowered the part limit.
        public let throttleCuts: Int
    }

    fileprivate enum Kind: Sendable {
        case transfer
        case part(bytes: Int64)
    }

    private struct Waiter {
        let id: UInt64
        let kind: Kind
        let priority: OSSTransferPriority
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var limits: OSSTransferLimits
        var partLimit: Int
        var transfers = 0
        var parts = 0
        var bytes: Int64 = 0
        var peakTransfers = 0
        var peakParts = 0
        var peakBytes: Int64 = 0
        /// Waiters in service order: priority descending, then arrival.
        var waiters: [Waiter] = []
        var nextId: UInt64 = 0
        var throttleCuts = 0
        var lastCut: ContinuousClock.Instant?
        /// Successful parts since the part limit last changed.
        var successes = 0

        /// The bytes `kind` is charged: a part larger than the budget is charged the whole budget (it runs alone).
        func charge(_ kind: Kind) -> Int64 {
            if case .part(let bytes) = kind { min(max(0, bytes), limits.memoryBudget) } else { 0 }
        }

        func fits(_ kind: Kind) -> Bool {
            switch kind {
            case .transfer: transfers < limits.transfers
            case .part: parts < partLimit && bytes + charge(kind) <= limits.memoryBudget
            }
        }

        mutating func take(_ kind: Kind) {
            switch kind {
            case .transfer:
                transfers += 1
                peakTransfers = max(peakTransfers, transfers)
            case .part:
                parts += 1
                bytes += charge(kind)
                peakParts = max(peakParts, parts)
                peakBytes = max(peakBytes, bytes)
            }
        }

        mutating func give(_ kind: Kind) {
            switch kind {
            case .transfer: transfers -= 1
            case .part: (parts, bytes) = (parts - 1, bytes - charge(kind))
            }
        }

        /// Takes the slots of the waiters that fit now, in service order, and returns them. Transfers and parts
        /// queue separately; among parts, one that does not fit holds back those behind it.
        mutating func admit() -> [Waiter] {
            var admitted: [Waiter] = []
            var partsBlocked = false
            var index = 0
            while index < waiters.count {
                let waiter = waiters[index]
                let isPart = if case .part = waiter.kind { true } else { false }
                if (isPart && partsBlocked) || !fits(waiter.kind) {
                    if isPart { partsBlocked = true }
                    index += 1
                    continue
                }
                take(waiter.kind)
                admitted.append(waiters.remove(at: index))
            }
            return admitted
        }

        mutating func enqueue(_ waiter: Waiter) {
            let index = waiters.firstIndex { $0.priority < waiter.priority } ?? waiters.endIndex
            waiters.insert(waiter, at: index)
        }
    }

    private let state: OSSLockedValue<State>

    public init(limits: OSSTransferLimits = .platformDefault) {
        state = OSSLockedValue(State(limits: limits, partLimit: limits.partsInFlight))
    }

    /// The limits in force.
    public var limits: OSSTransferLimits { state.withLockedValue { $0.limits } }

    /// Changes the limits; waiters that now fit start at once. Slots already held are kept (a lower limit takes
    /// effect as they are given back).
    public func setLimits(_ limits: OSSTransferLimits) {
        let admitted = state.withLockedValue { state in
            let throttled = state.partLimit < state.limits.partsInFlight
            state.limits = limits
            state.partLimit = throttled ? min(state.partLimit, limits.partsInFlight) : limits.partsInFlight
            return state.admit()
        }
        for waiter in admitted { waiter.continuation.resume() }
    }

    public var snapshot: Snapshot {
        state.withLockedValue { state in
            let waitingParts = state.waiters.filter { if case .part = $0.kind { true } else { false } }.count
            return Snapshot(
                limits: state.limits, currentPartLimit: state.partLimit, runningTransfers: state.transfers,
                partsInFlight: state.parts, bufferedBytes: state.bytes,
                waitingTransfers: state.waiters.count - waitingParts, waitingParts: waitingParts,
                peakRunningTransfers: state.peakTransfers, peakPartsInFlight: state.peakParts, peakBufferedBytes: state.peakBytes, throttleCuts: state.throttleCuts)
        }
    }

    // MARK: - Slots

    /// Runs `body` holding a transfer slot, waiting for one first.
    ///
    /// - Parameter proceedsWhenCancelled: when the wait is cancelled, run `body` anyway without a slot (a transfer
    ///   cancelled or paused before it started still goes through its state machine, which stops at once and
    ///   keeps or removes what its policy says) instead of throwing `CancellationError`.
    func withTransferSlot<T>(
        priority: OSSTransferPriority, proceedsWhenCancelled: Bool = false,
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async throws -> T {
        do {
            try await acquire(.transfer, priority: priority)
        } catch where proceedsWhenCancelled {
            return try await body()
        }
        defer { release(.transfer, succeeded: false) }
        return try await body()
    }

    /// Runs `body` (one part) holding a part slot and `bytes` of the memory budget, waiting for both first.
    /// A part that returns counts toward raising a throttled part limit again.
    func withPartSlot<T>(
        priority: OSSTransferPriority, bytes: Int64, isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> T
    ) async throws -> T {
        try await acquire(.part(bytes: bytes), priority: priority)
        var succeeded = false
        defer { release(.part(bytes: bytes), succeeded: succeeded) }
        let result = try await body()
        succeeded = true
        return result
    }

    /// Takes a part slot and `bytes` of the memory budget (waiting for both first) for a part whose work spans
    /// tasks: a stream upload's part is read into memory by the part loop, then sent by a child task. Give it back
    /// with ``OSSPartSlot/release(succeeded:)``; a slot dropped without that is given back when it goes.
    func partSlot(priority: OSSTransferPriority, bytes: Int64) async throws -> OSSPartSlot {
        try await acquire(.part(bytes: bytes), priority: priority)
        return OSSPartSlot(scheduler: self, bytes: bytes)
    }

    /// Halves the part limit after a throttled answer (at most once a second, never below 1).
    func noteThrottled() {
        state.withLockedValue { state in
            let now = ContinuousClock.now
            if let last = state.lastCut, now - last < .seconds(1) { return }
            state.lastCut = now
            state.partLimit = max(1, state.partLimit / 2)
            state.throttleCuts += 1
            state.successes = 0
        }
    }

    private func acquire(_ kind: Kind, priority: OSSTransferPriority) async throws {
        let id = state.withLockedValue { state -> UInt64 in
            state.nextId += 1
            return state.nextId
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready: [Waiter]? = state.withLockedValue { state in
                    // Checked under the lock: a cancellation after this finds the waiter in the queue.
                    if Task.isCancelled { return nil }
                    state.enqueue(Waiter(id: id, kind: kind, priority: priority, continuation: continuation))
                    return state.admit()
                }
                guard let ready else { return continuation.resume(throwing: CancellationError()) }
                // This waiter among them when it fits now.
                for waiter in ready { waiter.continuation.resume() }
            }
        } onCancel: {
            let removed = state.withLockedValue { state -> Waiter? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index)
            }
            removed?.continuation.resume(throwing: CancellationError())
        }
    }

    fileprivate func release(_ kind: Kind, succeeded: Bool) {
        let admitted = state.withLockedValue { state in
            state.give(kind)
            if case .part = kind, succeeded, state.partLimit < state.limits.partsInFlight {
                state.successes += 1
                if state.successes >= state.partLimit {
                    state.partLimit += 1
                    state.successes = 0
                }
            }
            return state.admit()
        }
        for waiter in admitted { waiter.continuation.resume() }
    }
}

/// A part slot of an ``OSSTransferScheduler`` held outside a closure (``OSSTransferScheduler/partSlot(priority:bytes:)``),
/// given back once.
final class OSSPartSlot: Sendable {
    private let scheduler: OSSTransferScheduler
    private let bytes: Int64
    private let held = OSSLockedValue(true)

    fileprivate init(scheduler: OSSTransferScheduler, bytes: Int64) {
        self.scheduler = scheduler
        self.bytes = bytes
    }

    /// Gives the slot back (only the first call counts); a part that `succeeded` counts toward raising a
    /// throttled part limit again.
    func release(succeeded: Bool) {
        let wasHeld = held.withLockedValue { held in
            defer { held = false }
            return held
        }
        if wasHeld { scheduler.release(.part(bytes: bytes), succeeded: succeeded) }
    }

    deinit {
        release(succeeded: false)
    }
}

/// How a transfer's parts wait for the client's scheduler: their priority and the bytes each part is charged.
struct OSSPartAdmission: Sendable {
    let scheduler: OSSTransferScheduler
    let priority: OSSTransferPriority
    /// The bytes of the memory budget `part` holds while it moves.
    let bytes: @Sendable (OSSPart) -> Int64

    /// Parts streamed from or to a file: each holds at most ``OSSTransferLimits/streamedPartBuffer``.
    static func streamed(_ scheduler: OSSTransferScheduler, priority: OSSTransferPriority) -> OSSPartAdmission {
        OSSPartAdmission(scheduler: scheduler, priority: priority) { min($0.length, OSSTransferLimits.streamedPartBuffer) }
    }
}
