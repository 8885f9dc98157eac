import OSSResumable

/// Keeps a download's records from waiting for the disk: a record is saved as soon as the parts and prefixes it
/// claims are written, listing as ``OSSDownloadRecord/unsynced`` those the last completed sync of the temporary
/// file does not cover, while syncs run in the background, one at a time, each covering what was written before it
/// started, once ``syncInterval`` bytes are unsynced (the kernel's writeback, started every MiB by the fetch, keeps
/// each one short). A resume checks the unsynced claims' CRC-64 against the file instead of fetching them again, so
/// a process killed at any network speed loses only what was in flight since the last record, and the check reads
/// at most about ``syncInterval`` bytes.
final class OSSDownloadSyncTracker: Sendable {
    private struct State {
        /// Bytes per part covered by a completed sync.
        var synced: [Int: Int64] = [:]
        var running = false
        /// The claims to cover with the next sync, once the running one returns.
        var pending: [Int: Int64]?
        var failure: OSSClientError?
    }

    /// Unsynced bytes that start a sync of the temporary file.
    static let syncInterval: Int64 = 16 << 20

    private let state = OSSLockedValue(State())
    private let file: OSSFile

    init(file: OSSFile) {
        self.file = file
    }

    /// The parts of `claims` not covered by a completed sync. Throws the failure of an earlier sync (the disk failed:
    /// the transfer stops with that error instead of recording bytes it may not hold).
    func unsynced(_ claims: [Int: Int64]) throws -> [Int] {
        try state.withLockedValue { state in
            if let failure = state.failure { throw failure }
            return claims.compactMap { number, bytes in bytes > (state.synced[number] ?? 0) ? number : nil }
        }
    }

    /// Asks for a sync covering `claims` (written already) once they hold ``syncInterval`` unsynced bytes: started
    /// now, or after the running one.
    func requestSync(covering claims: [Int: Int64]) {
        let start: Bool = state.withLockedValue { state in
            let unsynced = claims.reduce(Int64(0)) { $0 + Swift.max(0, $1.value - (state.synced[$1.key] ?? 0)) }
            guard unsynced >= Self.syncInterval else { return false }
            if state.running {
                state.pending = claims
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        Task { await self.run(claims) }
    }

    private func run(_ first: [Int: Int64]) async {
        var claims = first
        while true {
            var failure: OSSClientError?
            do {
                try await file.sync()
            } catch {
                failure = (error as? OSSClientError) ?? OSSClientError(.fileCantWrite, "cannot sync \(file.path)", underlying: error)
            }
            let next: [Int: Int64]? = state.withLockedValue { state in
                if let failure {
                    // A file closed under the sync (the transfer ended) is not a disk failure.
                    if !file.isClosed { state.failure = failure }
                } else {
                    state.synced.merge(claims) { Swift.max($0, $1) }
                }
                guard failure == nil, let pending = state.pending else {
                    state.running = false
                    state.pending = nil
                    return nil
                }
                state.pending = nil
                return pending
            }
            guard let next else { return }
            claims = next
        }
    }
}
