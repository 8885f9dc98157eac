#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSCRC64

/// One line of a batch journal.
///
/// The journal (`<record directory>/batches/<id>/journal`) is append-only JSON Lines, each line
/// `<CRC-64 of the JSON, 16 hex digits> <JSON>`:
/// - `header` (first line): format version, the ``OSSDirectoryTransferRequest`` or the ``OSSListTransferRequest``
///   (the list's keys, files and metadata, never the bytes of its `Data` or streams; no credentials are in it), date;
/// - `run`: a run started;
/// - `item`: an item started (`running`, for a resumable transfer, whose own checkpoint record then lives in the
///   batch's `records` directory), was paused with it (`paused`), or ended (`ended`, with its outcome and bytes);
/// - `mark`: every item whose key is at or before `through` (in UTF-8 byte order) has ended — the walk and the
///   listing go in that order, and a run never has more than ``OSSBatchRunner/window`` items open past its mark,
///   so a resume needs only the last mark and the few keys ended past it, never a set of every file;
/// - `end`: a run ended in a state.
///
/// Nothing is rewritten: a kill leaves at most one torn last line, which its checksum rejects. A line that does
/// not check out is skipped, which only ever makes a resume do more (an ended item not seen is redone).
struct OSSBatchJournalEntry: Codable, Sendable {
    enum Kind: String, Codable, Sendable {
        case header, run, item, mark, end
    }

    enum ItemState: String, Codable, Sendable {
        case running, paused, ended
    }

    static let version = 1

    var kind: Kind
    var version: Int?
    var request: OSSDirectoryTransferRequest?
    var list: OSSListTransferRequest?
    var date: Date?
    var key: String?
    var path: String?
    var state: ItemState?
    var outcome: OSSBatchItemOutcome?
    var bytes: Int64?
    var through: String?
    var end: OSSBatchState?

    private enum CodingKeys: String, CodingKey {
        case kind = "t", version = "v", request, list, date, key = "k", path = "p", state = "s", outcome = "o", bytes = "b"
        case through, end
    }

    static func header(_ request: OSSBatchRequest) -> Self {
        Self(kind: .header, version: version, request: request.directory, list: request.list, date: Date())
    }

    /// The request of a header.
    var batchRequest: OSSBatchRequest? {
        if let request { return .directory(request) }
        return list.map(OSSBatchRequest.list)
    }

    static func run() -> Self { Self(kind: .run, date: Date()) }

    static func item(_ key: String, path: String, _ state: ItemState, outcome: OSSBatchItemOutcome? = nil, bytes: Int64? = nil) -> Self {
        Self(kind: .item, key: key, path: path, state: state, outcome: outcome, bytes: bytes)
    }

    static func mark(_ key: String) -> Self { Self(kind: .mark, through: key) }

    static func end(_ state: OSSBatchState) -> Self { Self(kind: .end, date: Date(), end: state) }

    /// The line for this entry, newline included.
    func line() throws -> Data {
        let json = try JSONEncoder().encode(self)
        var line = Data(String(CRC64.checksum(json), radix: 16).leftPadded(to: 16).utf8)
        line.append(0x20)
        line.append(json)
        line.append(0x0A)
        return line
    }

    /// The entry of `line` (without its newline), or `nil` when it does not check out.
    static func decode(_ line: Data) -> Self? {
        guard line.count > 17, line[line.startIndex + 16] == 0x20,
            let checksum = UInt64(String(decoding: line.prefix(16), as: UTF8.self), radix: 16)
        else { return nil }
        let json = line.dropFirst(17)
        guard CRC64.checksum(json) == checksum else { return nil }
        return try? JSONDecoder().decode(Self.self, from: json)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}

/// Appends entries to a batch journal. Owned by the batch's run (one writer; the journal's lock keeps other
/// processes out). Each entry is written with one `pwrite` as it happens, so a killed process loses nothing it
/// had written; the file is synced at most once a second and at the end (a power loss may cost the last second,
/// which a resume simply does again).
final class OSSBatchJournalWriter {
    let path: String
    private let file: OSSFile
    private var offset: Int64
    private var lastSync = ContinuousClock.now

    private init(path: String, file: OSSFile, offset: Int64) {
        self.path = path
        self.file = file
        self.offset = offset
    }

    /// Opens the journal at `path` for appending, creating it with `header` when it does not exist. A torn last
    /// line left by a kill is closed with a newline first, so the next entry starts a line of its own.
    static func open(path: String, header: OSSBatchJournalEntry?) async throws -> OSSBatchJournalWriter {
        let file = try await OSSFile.open(path, .update(create: true))
        let size = try file.size()
        let writer = OSSBatchJournalWriter(path: path, file: file, offset: size)
        if size > 0 {
            let last = try await OSSFile.withFile(path, .read) { try await $0.read(at: size - 1, count: 1) }
            if last != Data([0x0A]) { try await writer.write(Data([0x0A])) }
        } else if let header {
            try await writer.append(header)
            try await writer.sync()
        }
        return writer
    }

    func append(_ entry: OSSBatchJournalEntry) async throws {
        try await write(try entry.line())
        if ContinuousClock.now - lastSync >= .seconds(1) { try await sync() }
    }

    func sync() async throws {
        lastSync = .now
        try await file.sync()
    }

    /// Syncs and closes the journal.
    func close() async throws {
        defer { file.close() }
        try await file.sync()
    }

    private func write(_ data: Data) async throws {
        // Written even when the task is being cancelled: a pause's own entries must land.
        try await file.write(data, at: offset, evenWhenCancelled: true)
        offset += Int64(data.count)
    }
}
