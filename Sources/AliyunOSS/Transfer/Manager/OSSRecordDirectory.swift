import Foundation
import OSSResumable

/// One checkpoint record found in a record directory, decoded (or not).
struct OSSRecordEntry: Sendable {
    enum Content: Sendable {
        case upload(OSSUploadRecord)
        case download(OSSDownloadRecord)
        /// The record exists but cannot be used: why.
        case unusable(OSSResumableError)
    }

    /// The record's file name, which is also its transfer id.
    let name: String
    let kind: OSSRecordKind
    let content: Content
    /// The record file's modification time.
    let modified: Date?
}

/// Reads a directory of checkpoint records written by `resumableUpload` / `resumableDownload`.
struct OSSRecordDirectory: Sendable {
    static let uploadSuffix = ".upload.record"
    static let downloadSuffix = ".download.record"

    let store: OSSRecordStore

    /// With `baseDirectory`, a relative `path` is taken from it, and the records' local paths are resolved
    /// against it.
    init(path: String, baseDirectory: OSSBaseDirectory? = nil) {
        store = OSSRecordStore(directoryPath: path, baseDirectory: baseDirectory)
    }

    var path: String { store.directoryPath }

    /// The file names in the directory (empty when it does not exist).
    func fileNames() throws -> [String] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
        guard type == .typeDirectory else {
            throw OSSClientError(.invalidArgument, "record directory \(path) is not a directory")
        }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        } catch {
            throw OSSClientError(.fileCantRead, "cannot list the record directory \(path)", underlying: error)
        }
    }

    /// The kind a record file name says it holds, or `nil` when the name is not a record's.
    static func kind(ofRecordName name: String) -> OSSRecordKind? {
        if name.hasPrefix(".") { return nil }
        if name.hasSuffix(uploadSuffix) { return .upload }
        if name.hasSuffix(downloadSuffix) { return .download }
        return nil
    }

    /// Decodes the record called `name`; `nil` when it vanished meanwhile.
    func entry(name: String) -> OSSRecordEntry? {
        guard let kind = Self.kind(ofRecordName: name) else { return nil }
        let modified = Self.modificationDate(store.recordPath(name: name))
        switch kind {
        case .backgroundUpload, .backgroundDownload:
            return nil  // bg: background records live in the background service's own directory
        case .upload:
            switch store.loadResult(OSSUploadRecord.self, name: name) {
            case .none: return nil
            case .loaded(let record): return OSSRecordEntry(name: name, kind: kind, content: .upload(record), modified: modified)
            case .unusable(let error): return OSSRecordEntry(name: name, kind: kind, content: .unusable(error), modified: modified)
            }
        case .download:
            switch store.loadResult(OSSDownloadRecord.self, name: name) {
            case .none: return nil
            case .loaded(let record): return OSSRecordEntry(name: name, kind: kind, content: .download(record), modified: modified)
            case .unusable(let error): return OSSRecordEntry(name: name, kind: kind, content: .unusable(error), modified: modified)
            }
        }
    }

    /// Every record in the directory, decoded.
    func entries() throws -> [OSSRecordEntry] {
        try fileNames().compactMap { entry(name: $0) }
    }

    /// Removes the record `name`. Its lock file is not touched: only the lock's holder removes it, when it
    /// releases it (see ``OSSRecordLock``).
    func remove(name: String) throws {
        do {
            try store.delete(name: name)
        } catch {
            throw OSSClientError(.fileCantWrite, "cannot remove the record \(store.recordPath(name: name))", underlying: error)
        }
    }

    /// Ends the transfer of record `name` for good, under its lock: aborts its multipart upload (one already gone is
    /// fine) or deletes its download's temporary file, then removes the record.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` when there is no record `name`, `transferInUse` when another
    ///   run holds it, `fileCantWrite` when a file cannot be removed; or the ``OSSServerError`` of the abort (the
    ///   record is then kept).
    func terminate(name: String, client: OSSClient) async throws {
        guard Self.kind(ofRecordName: name) != nil, let entry = entry(name: name) else {
            throw OSSClientError(.invalidArgument, "no transfer \(name) in \(path)")
        }
        let lock = try lock(name: name)
        defer { withExtendedLifetime(lock) {} }
        switch entry.content {
        case .upload(let record):
            do {
                _ = try await client.abortMultipartUpload(
                    OSSAbortMultipartUploadRequest(bucketName: record.bucket, objectKey: record.key, uploadId: record.uploadId))
            } catch let error as OSSServerError where error.code == "NoSuchUpload" {
                // Already aborted or completed.
            }
        case .download(let record):
            if FileManager.default.fileExists(atPath: record.tempFilePath) {
                do {
                    try FileManager.default.removeItem(atPath: record.tempFilePath)
                } catch {
                    throw OSSClientError(.fileCantWrite, "cannot remove the temporary file \(record.tempFilePath)", underlying: error)
                }
            }
        case .unusable:
            break
        }
        try remove(name: name)
    }

    /// Takes the lock of record `name`.
    ///
    /// - Throws: ``OSSClientError`` `transferInUse` when it is held elsewhere, `fileCantWrite` when it cannot be taken.
    func lock(name: String) throws -> OSSRecordLock {
        do {
            return try store.lock(name: name)
        } catch {
            throw Self.inUse(error, lockPath: store.lockPath(name: name))
        }
    }

    /// `transferInUse` for a lock held elsewhere; the lock error's own mapping for anything else.
    static func inUse(_ error: OSSResumableError, lockPath: String) -> OSSClientError {
        if case .recordLocked = error { return .transferInUse(lockPath: lockPath, underlying: error) }
        return OSSClientError(.fileCantWrite, "cannot take the lock \(lockPath): \(error)", underlying: error)
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Whether something last modified at `date` is at least `age` old (an age of zero or less matches everything).
    static func isOlder(_ date: Date?, than age: Duration, now: Date = Date()) -> Bool {
        if age <= .zero { return true }
        guard let date else { return false }
        return now.timeIntervalSince(date) >= age.timeInterval
    }
}
