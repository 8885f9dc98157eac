#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Keys compared as OSS lists them: by their UTF-8 bytes.
enum OSSKeyOrder {
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

/// What a batch's journal says, read line by line in one pass: the request, the mark, the items ended past it,
/// the failed ones (a resume retries them), the files in flight when the last run ended, and totals.
///
/// Memory: the keys ended past the last mark (bounded by the run's window), the failed keys and the keys in
/// flight; never one entry per file.
struct OSSBatchJournalReplay: Sendable {
    var request: OSSBatchRequest
    var created: Date
    /// Every item at or before this key ended (`nil`: none known).
    var mark: String?
    /// Keys past the mark that ended.
    var endedPastMark: Set<String> = []
    /// Keys whose last ending was a failure.
    var failed: Set<String> = []
    /// Keys started (`running` or `paused`) and not ended since.
    var inFlight: Set<String> = []
    var counts = OSSBatchCounts()
    var bytesDone: Int64 = 0
    /// The state the last run ended in; `interrupted` when it started and never ended.
    var state: OSSBatchState = .interrupted

    /// Whether an earlier run finished `key` for good (ended, and not with a failure).
    func isDone(_ key: String) -> Bool {
        if failed.contains(key) { return false }
        if let mark, !OSSKeyOrder.precedes(mark, key) { return true }
        return endedPastMark.contains(key)
    }

    /// Reads the journal at `path`.
    ///
    /// - Throws: ``OSSClientError`` `fileCantRead` when it cannot be read; `invalidArgument` when its header is
    ///   missing, unreadable or of a newer format.
    static func read(path: String) async throws -> OSSBatchJournalReplay {
        var replay: OSSBatchJournalReplay?
        try await forEachEntry(path: path) { entry in
            guard var current = replay else {
                guard entry.kind == .header, let request = entry.batchRequest, (entry.version ?? 0) <= OSSBatchJournalEntry.version else {
                    throw OSSClientError.invalidArgument("the batch journal \(path) has no usable header")
                }
                replay = OSSBatchJournalReplay(request: request, created: entry.date ?? Date(timeIntervalSince1970: 0))
                return
            }
            current.apply(entry)
            replay = current
        }
        guard let replay else { throw OSSClientError.invalidArgument("the batch journal \(path) is empty") }
        return replay
    }

    private mutating func apply(_ entry: OSSBatchJournalEntry) {
        switch entry.kind {
        case .header:
            break
        case .run:
            state = .interrupted
        case .end:
            state = entry.end ?? .interrupted
        case .mark:
            guard let through = entry.through else { return }
            if mark == nil || OSSKeyOrder.precedes(mark!, through) { mark = through }
            endedPastMark = endedPastMark.filter { OSSKeyOrder.precedes(through, $0) }
        case .item:
            guard let key = entry.key else { return }
            switch entry.state {
            case .running?, .paused?:
                inFlight.insert(key)
            case .ended?:
                inFlight.remove(key)
                guard let outcome = entry.outcome else { return }
                if outcome.isFailure {
                    failed.insert(key)
                } else {
                    failed.remove(key)
                    counts.count(outcome)
                    bytesDone += entry.bytes ?? 0
                }
                counts.failed = failed.count
                if mark.map({ OSSKeyOrder.precedes($0, key) }) ?? true { endedPastMark.insert(key) }
            case nil:
                break
            }
        }
    }

    /// Calls `body` with each entry that checks out, in order, reading the file in chunks.
    static func forEachEntry(path: String, _ body: (OSSBatchJournalEntry) throws -> Void) async throws {
        try await OSSFile.withFile(path, .read) { file in
            let size = try file.size()
            var pending = Data()
            var offset: Int64 = 0
            while offset < size {
                let chunk = try await file.read(at: offset, count: 1 << 20)
                guard !chunk.isEmpty else { break }
                offset += Int64(chunk.count)
                pending.append(chunk)
                var start = pending.startIndex
                while let newline = pending[start...].firstIndex(of: 0x0A) {
                    if let entry = OSSBatchJournalEntry.decode(pending[start..<newline]) { try body(entry) }
                    start = newline + 1
                }
                pending = Data(pending[start...])
            }
            // A last line without its newline is torn by definition: a kill stopped its write.
        }
    }
}
