#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

/// Writes a download's checkpoint journal (``OSSDownloadJournal``) beside its record. The parts' fetches call
/// ``append(number:offset:bytes:crc64:)`` from their own tasks right after writing the bytes it vouches for: one
/// `pwrite` of an entry into its slot of the ring, off the cooperative pool, no sync (the entries only have to
/// outlive the process; the kernel keeps them, and a resume checks each against the temporary file). A journal
/// that cannot be written is given up quietly; the record is saved as before.
final class OSSDownloadJournalWriter: Sendable {
    private struct State {
        var nextSequence: UInt64
        var failed = false
    }

    private let state: OSSLockedValue<State>
    private let file: OSSFile
    private let identity: UInt64

    private init(file: OSSFile, identity: UInt64, nextSequence: UInt64) {
        self.file = file
        self.identity = identity
        state = OSSLockedValue(State(nextSequence: nextSequence))
    }

    /// Opens (or creates) the journal at `path` for the download with `identity`; entries go on from
    /// `nextSequence`. `nil` when it cannot be opened (the record directory is full or read-only: the record's own
    /// save reports that).
    static func open(path: String, identity: UInt64, nextSequence: UInt64) async -> OSSDownloadJournalWriter? {
        guard let file = try? await OSSFile.open(path, .update(create: true)) else { return nil }
        return OSSDownloadJournalWriter(file: file, identity: identity, nextSequence: nextSequence)
    }

    /// Notes that the `bytes` bytes of part `number` from object offset `offset` (where this fetch of the part
    /// started) are written and have CRC-64 `crc64`. Never throws: a journal that cannot be written is given up.
    func append(number: Int, offset: Int64, bytes: Int64, crc64: UInt64) async {
        let sequence: UInt64? = state.withLockedValue { state in
            guard !state.failed else { return nil }
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        guard let sequence else { return }
        let entry = OSSDownloadJournal.Entry(
            identity: identity, sequence: sequence, number: number, offset: offset, bytes: bytes, crc64: crc64)
        do {
            try await file.write(
                Data(OSSDownloadJournal.encode(entry)), at: OSSDownloadJournal.fileOffset(ofSequence: sequence))
        } catch is CancellationError {
            // The part was paused or cancelled: the record, flushed on the way out, has what this entry said.
        } catch {
            state.withLockedValue { $0.failed = true }
        }
    }

    /// Stops writing; the file is closed once a write in progress ends.
    func close() {
        state.withLockedValue { $0.failed = true }
        file.close()
    }

    /// The intact entries of the journal at `path` and the sequence number to go on with; none when there is no
    /// journal or it cannot be read.
    static func load(path: String) async -> (entries: [OSSDownloadJournal.Entry], nextSequence: UInt64) {
        let contents: [UInt8]? = await OSSBlockingIO.run {
            guard let data = FileManager.default.contents(atPath: path),
                data.count <= OSSDownloadJournal.capacity * OSSDownloadJournal.entryLength
            else { return nil }
            return [UInt8](data)
        }
        let entries = contents.map(OSSDownloadJournal.entries(in:)) ?? []
        return (entries, entries.map { $0.sequence + 1 }.max() ?? 0)
    }

    /// Removes the journal at `path` (missing is fine).
    static func remove(path: String) {
        _ = OSSDownloadTempFileIO.remove(path: path)
    }
}
