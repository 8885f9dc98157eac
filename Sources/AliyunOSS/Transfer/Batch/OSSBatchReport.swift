#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a batch stands.
public enum OSSBatchState: String, Sendable, Hashable, Codable {
    /// Running in this process.
    case running
    /// Paused (``OSSBatch/pause()``, or the task awaiting it cancelled): resumable.
    case paused
    /// Its run ended without a word (the process was killed): resumable.
    case interrupted
    /// Stopped at its first failure (``OSSBatchFailurePolicy/stopOnFirstFailure``): resumable.
    case stopped
    /// The batch itself failed (a listing that failed after retries, an unreadable directory root...):
    /// resumable once the cause is gone.
    case failed
    /// Every item ended: done, unchanged, deleted or refused.
    case completed
    /// Every item ended, some failed: resuming retries those.
    case completedWithFailures
    /// Cancelled (``OSSBatch/cancel()``): stopped and removed, nothing to resume.
    case cancelled

    /// Whether ``OSSTransferManager/resumeBatch(_:sources:)`` has something to do.
    public var isResumable: Bool {
        self != .completed && self != .running && self != .cancelled
    }
}

/// How many items of a batch ended which way.
public struct OSSBatchCounts: Sendable, Hashable, Codable {
    public var uploaded = 0
    public var downloaded = 0
    public var unchanged = 0
    public var deleted = 0
    public var createdDirectories = 0
    public var failed = 0
    public var refused = 0
    public var wouldUpload = 0
    public var wouldDownload = 0
    public var wouldDelete = 0
    public var wouldCreateDirectory = 0
    /// Files an earlier run of the batch had already finished: not sent again.
    public var doneInEarlierRuns = 0

    public init() {}

    /// Every item counted.
    public var total: Int {
        uploaded + downloaded + unchanged + deleted + createdDirectories + failed + refused + wouldUpload
            + wouldDownload + wouldDelete + wouldCreateDirectory + doneInEarlierRuns
    }

    mutating func count(_ outcome: OSSBatchItemOutcome) {
        switch outcome {
        case .uploaded: uploaded += 1
        case .downloaded: downloaded += 1
        case .unchanged: unchanged += 1
        case .deleted: deleted += 1
        case .createdDirectory: createdDirectories += 1
        case .failed: failed += 1
        case .refused: refused += 1
        case .wouldUpload: wouldUpload += 1
        case .wouldDownload: wouldDownload += 1
        case .wouldDelete: wouldDelete += 1
        case .wouldCreateDirectory: wouldCreateDirectory += 1
        }
    }
}

/// What a batch run did: counts per outcome, bytes, and the items that failed or were refused.
///
/// A batch that finished with failures is not an error: ``OSSBatch/result()`` returns its report with
/// ``state`` ``OSSBatchState/completedWithFailures`` (check ``hasFailures``). Every item, not only the problems, is
/// reported as it ends by ``OSSBatch/events``.
public struct OSSBatchReport: Sendable, Hashable {
    /// The most problems kept in ``problems``; the others are only counted (``omittedProblems``).
    public static let maximumListedProblems = 1000

    public var batchId: String
    public var state: OSSBatchState
    public var dryRun: Bool
    public var counts: OSSBatchCounts
    /// Bytes this run moved over the network (sent or received): not those an earlier run had moved.
    public var bytesTransferred: Int64
    /// Bytes of files and parts earlier runs had finished, not moved again.
    public var bytesFromEarlierRuns: Int64
    /// The failed and refused items, in the order they ended (at most ``maximumListedProblems``).
    public var problems: [OSSBatchItem]
    /// Failed and refused items beyond ``maximumListedProblems``.
    public var omittedProblems: Int
    /// How long the run took.
    public var duration: Duration

    /// Whether an item failed.
    public var hasFailures: Bool { counts.failed > 0 }
}

/// Something a running batch reports through ``OSSBatch/events``.
public enum OSSBatchEvent: Sendable, Hashable {
    /// A file started moving (an upload, download, comparison or deletion began).
    case started(key: String, bytes: Int64)
    /// An item ended (every item is reported once per run, refused and unchanged ones included).
    case item(OSSBatchItem)
    /// The batch's progress, at most about four times a second while bytes move, and once at the end.
    case progress(OSSBatchProgress)
    /// The run ended in `state` (the last event).
    case finished(OSSBatchState)
}

/// A batch found in the manager's record directory (``OSSTransferManager/batches()``).
public struct OSSBatchInfo: Sendable, Hashable, Identifiable {
    public var id: String
    public var request: OSSBatchRequest
    public var state: OSSBatchState
    /// When the batch was started first.
    public var created: Date
    /// Items the journal records as ended, by outcome, over every run.
    public var counts: OSSBatchCounts
    /// Bytes of the files the journal records as moved, over every run.
    public var bytesDone: Int64
    /// Keys of the files that were moving when the last run ended (paused or killed): each resumes from its own
    /// checkpoint record.
    public var inFlight: [String]
}
