import Crypto
import Foundation

/// A directory of checkpoint records: naming, atomic writes, loading, deleting and locking.
///
/// A record's file name is the SHA-256 (hex) of what identifies the transfer, so the same transfer always finds
/// its record and different transfers never share one:
/// - uploads: (local file path, bucket, key, requested part size, CRC mode);
/// - downloads: (bucket, key, requested range, destination path).
///
/// The local path is absolute, or relative to the transfer's base directory (``OSSBaseDirectory``) when it has
/// one: such a record, and its name, stay the same when the directory holding the file and the records moves.
/// A store made with a base directory stores the paths of its records in that relative form and resolves them
/// against the base directory on load (``OSSTransferRecord/relativized(to:)``,
/// ``OSSTransferRecord/resolved(against:)``), so its users only ever see absolute paths.
///
/// Writes are atomic and durable (``OSSDurableFile/write(_:to:temporaryPath:)``): a temporary file in the same
/// directory is written and synced (`F_FULLFSYNC` on Darwin), renamed over the record, and the directory is
/// synced. A reader therefore sees the old record or the new one, never a mix; the envelope checksum catches
/// anything else (a torn write on a file system without these guarantees, an edit).
package struct OSSRecordStore: Sendable {
    /// The directory holding the records (absolute, standardised).
    package let directoryPath: String
    /// The directory the records' local paths are stored relative to, if any.
    package let baseDirectory: OSSBaseDirectory?

    /// A store over `directoryPath` (created on first write). With `baseDirectory`, a relative `directoryPath`
    /// is taken from it, and records store their local paths relative to it.
    package init(directoryPath: String, baseDirectory: OSSBaseDirectory? = nil) {
        if let baseDirectory, OSSBaseDirectory.isRelative(directoryPath) {
            self.directoryPath = OSSRecordStore.absolutePath(baseDirectory.resolve(directoryPath))
        } else {
            self.directoryPath = OSSRecordStore.absolutePath(directoryPath)
        }
        self.baseDirectory = baseDirectory
    }

    /// The file name of the record of an upload. `filePath` is the stored form: relative to the transfer's base
    /// directory, or absolute (then standardised with symbolic links resolved).
    package static func uploadRecordName(
        filePath: String,
        bucket: String,
        key: String,
        requestedPartSize: Int64,
        crcMode: OSSCRCMode,
        sequential: Bool = false
    ) -> String {
        // A sequential upload (`?sequential`) never shares a record, and so an upload id, with a parallel one.
        digestName(
            ["upload", storedForm(filePath), bucket, key, String(requestedPartSize), crcMode.rawValue]
                + (sequential ? ["sequential"] : []))
            + ".upload.record"
    }

    /// The file name of the record of a download. `destinationPath` is the stored form, as for uploads.
    package static func downloadRecordName(
        bucket: String,
        key: String,
        requestedRange: OSSRequestedRange?,
        destinationPath: String
    ) -> String {
        digestName(["download", bucket, key, requestedRange?.description ?? "whole", storedForm(destinationPath)])
            + ".download.record"
    }

    /// An absolute, standardised path with symbolic links resolved where they exist.
    package static func absolutePath(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// A relative stored path as it is; an absolute one made canonical.
    private static func storedForm(_ path: String) -> String {
        OSSBaseDirectory.isRelative(path) ? path : absolutePath(path)
    }

    private static func digestName(_ fields: [String]) -> String {
        // Length-prefixed fields: no two different field lists hash the same input.
        var input = [UInt8]()
        for field in fields {
            input += Array("\(field.utf8.count):".utf8)
            input += Array(field.utf8)
            input.append(0x0A)
        }
        return OSSRecordCodec.sha256Hex(input)
    }

    /// The full path of the record called `name`.
    package func recordPath(name: String) -> String { directoryPath + "/" + name }

    /// The full path of the lock file of the record called `name`.
    package func lockPath(name: String) -> String { recordPath(name: name) + ".lock" }

    /// The full path of the checkpoint journal of the record called `name` (``OSSDownloadJournal``), removed with it.
    package func journalPath(name: String) -> String { recordPath(name: name) + ".journal" }

    /// Loads the record called `name`, its paths resolved against the base directory: `nil` if there is none;
    /// a record error (`recordCorrupt`, `recordChecksumMismatch`...) if it is unusable;
    /// `recordNeedsBaseDirectory` if it holds relative paths and this store has no base directory; `fileCantRead`
    /// if it cannot be read.
    package func load<Record: OSSTransferRecord>(_ type: Record.Type, name: String) throws(OSSResumableError) -> Record? {
        try loadStored(type, name: name)?.resolved(against: baseDirectory)
    }

    /// Loads the record called `name` as it is stored: its local paths relative to its base directory when it
    /// was written with one. For what does not need the paths (the upload ids a directory knows of).
    package func loadStored<Record: OSSTransferRecord>(_ type: Record.Type, name: String) throws(OSSResumableError) -> Record? {
        let path = recordPath(name: name)
        let fd: Int32
        switch POSIXFile.openForReading(path) {
        case .success(let opened): fd = opened
        case .failure(let code):
            if code.value == POSIXFile.noSuchFile { return nil }
            throw .fileCantRead(path: path, errno: code.value)
        }
        defer { POSIXFile.close(fd) }
        let size: Int64
        switch POSIXFile.status(fd: fd) {
        case .success(let st):
            guard st.isRegularFile else { throw .recordCorrupt("\(path) is not a regular file") }
            size = st.size
        case .failure(let code): throw .fileCantRead(path: path, errno: code.value)
        }
        guard size <= Int64(OSSRecordCodec.maximumRecordSize) else { throw .recordCorrupt("record is \(size) bytes") }
        switch POSIXFile.read(fd: fd, offset: 0, count: Int(size)) {
        case .failure(let code): throw .fileCantRead(path: path, errno: code.value)
        case .success(let bytes): return try OSSRecordCodec.decode(type, from: bytes)
        }
    }

    /// What can still be read from the record called `name` when it fails its checks (``OSSRecordCodec/salvage(from:)``):
    /// nothing when there is no such file or it cannot be read.
    package func salvage(name: String) -> OSSRecordSalvage {
        let path = recordPath(name: name)
        guard case .success(let fd) = POSIXFile.openForReading(path) else { return OSSRecordSalvage() }
        defer { POSIXFile.close(fd) }
        guard case .success(let st) = POSIXFile.status(fd: fd), st.isRegularFile,
            st.size <= Int64(OSSRecordCodec.maximumRecordSize),
            case .success(let bytes) = POSIXFile.read(fd: fd, offset: 0, count: Int(st.size))
        else { return OSSRecordSalvage() }
        return OSSRecordCodec.salvage(from: bytes)
    }

    /// Like ``load(_:name:)`` but folds record problems into the result, which is what a resuming engine wants.
    package func loadResult<Record: OSSTransferRecord>(_ type: Record.Type, name: String) -> OSSRecordLoadResult<Record> {
        do {
            guard let record = try load(type, name: name) else { return .none }
            return .loaded(record)
        } catch {
            return .unusable(error)
        }
    }

    /// Writes `record` as `name` atomically and durably (temporary file, sync, rename, directory sync), its local
    /// paths inside the base directory made relative.
    package func save<Record: OSSTransferRecord>(_ record: Record, name: String) throws(OSSResumableError) {
        let bytes = try OSSRecordCodec.encode(baseDirectory.map(record.relativized(to:)) ?? record)
        if let code = POSIXFile.makeDirectories(directoryPath) {
            throw .fileCantWrite(path: directoryPath, errno: code)
        }
        let tempPath = directoryPath + "/." + name + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        try OSSDurableFile.write(bytes, to: recordPath(name: name), temporaryPath: tempPath)
    }

    /// Removes the record called `name` (a missing record is fine), and any temporary file a save of it left
    /// behind, and makes the removal durable.
    package func delete(name: String) throws(OSSResumableError) {
        let path = recordPath(name: name)
        if let code = POSIXFile.remove(path) { throw .fileCantWrite(path: path, errno: code) }
        _ = POSIXFile.remove(journalPath(name: name))
        removeTemporaryFiles(name: name)
        if let code = OSSDurableFile.syncDirectory(directoryPath), code != POSIXFile.noSuchFile {
            throw .fileCantWrite(path: directoryPath, errno: code)
        }
    }

    /// Takes the exclusive lock of the record called `name` (creating the directory if needed), or throws
    /// `recordLocked` when another process holds it. Keep the returned object alive while working on the record.
    package func lock(name: String) throws(OSSResumableError) -> OSSRecordLock {
        if let code = POSIXFile.makeDirectories(directoryPath) {
            throw .fileCantWrite(path: directoryPath, errno: code)
        }
        let lock = try OSSRecordLock.acquire(path: lockPath(name: name))
        // Only the lock holder writes this record, so a temporary file of it that exists now was left by a save
        // that never finished (a process killed mid-write): it would otherwise stay forever.
        removeTemporaryFiles(name: name)
        return lock
    }

    /// Removes `.<name>.tmp-*`, the temporary files of saves of `name` that never reached their rename.
    func removeTemporaryFiles(name: String) {
        let prefix = "." + name + ".tmp-"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: directoryPath) else { return }
        for entry in entries where entry.hasPrefix(prefix) {
            _ = POSIXFile.remove(directoryPath + "/" + entry)
        }
    }
}

/// A checkpoint record the codec and the store can handle.
package protocol OSSTransferRecord: Codable, Sendable, Hashable {
    /// The kind written in the envelope and checked on decode.
    static var recordKind: OSSRecordKind { get }
    /// The record's own kind field (checked against ``recordKind``).
    var kind: OSSRecordKind { get }
    /// Semantic checks after decoding: sizes, part numbers, ranges.
    func validate() throws(OSSResumableError)
    /// The record as it is stored with a base directory: its local paths inside `base` made relative, and
    /// nothing that a move of the directory changes (an upload's inode and device numbers).
    func relativized(to base: OSSBaseDirectory) -> Self
    /// The record with every relative local path resolved against `base`.
    ///
    /// - Throws: `recordNeedsBaseDirectory` when a path is relative and `base` is `nil`.
    func resolved(against base: OSSBaseDirectory?) throws(OSSResumableError) -> Self
}

/// Which transfer a record belongs to. A record of one kind offered where another is expected is "foreign".
package enum OSSRecordKind: String, Sendable, Hashable, Codable {
    case upload
    case download
    /// A multipart upload whose parts the system carries (``OSSBackgroundUploadRecord``).
    case backgroundUpload
    /// A download whose ranges the system carries (``OSSBackgroundDownloadRecord``).
    case backgroundDownload
}

/// Whether CRC-64 checking is on for a transfer. Part of a record's identity: a record written with one mode
/// is not resumed with the other.
package enum OSSCRCMode: String, Sendable, Hashable, Codable {
    /// Check each part's CRC-64 and the object's combined CRC-64.
    case enabled
    /// No CRC checks.
    case disabled
}

/// The outcome of loading a record for resuming.
package enum OSSRecordLoadResult<Record: OSSTransferRecord>: Sendable, Hashable {
    /// No record: start fresh.
    case none
    /// A well-formed record (it may still belong to another transfer or describe a changed file).
    case loaded(Record)
    /// A record exists but cannot be used (corrupt, foreign, unsupported, unreadable): start fresh, log a warning.
    case unusable(OSSResumableError)
}
