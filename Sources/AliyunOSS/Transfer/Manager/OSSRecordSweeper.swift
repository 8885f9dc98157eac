import Foundation
import OSSResumable

/// The work of ``OSSClient/sweepStaleRecords(recordDirectoryPath:olderThan:temporaryFileDirectories:)``.
struct OSSRecordSweeper {
    let directory: OSSRecordDirectory
    let olderThan: Duration
    let temporaryFileDirectories: [String]
    let now = Date()

    func sweep() throws -> OSSRecordSweepReport {
        var report = OSSRecordSweepReport(removedRecords: [], removedTemporaryFiles: [], keptRecords: [])
        let names = try directory.fileNames()
        var liveTempFiles = Set<String>()
        var recordNames = Set<String>()
        for name in names where OSSRecordDirectory.kind(ofRecordName: name) != nil {
            recordNames.insert(name)
            let path = directory.store.recordPath(name: name)
            // A running transfer holds the lock: leave its record (and temporary file) alone.
            let lock: OSSRecordLock
            do {
                lock = try directory.store.lock(name: name)
            } catch {
                report.keptRecords.append(path)
                if case .download(let record)? = directory.entry(name: name)?.content {
                    liveTempFiles.insert(record.tempFilePath)
                }
                continue
            }
            defer { withExtendedLifetime(lock) {} }
            guard let entry = directory.entry(name: name) else { continue }
            var stale = false
            switch entry.content {
            case .unusable(.recordNeedsBaseDirectory):
                // A portable record, readable with its base directory: not this sweep's to judge.
                stale = false
            case .unusable: stale = true
            case .upload: stale = false
            case .download(let record):
                stale = !FileManager.default.fileExists(atPath: record.tempFilePath)
                if !stale { liveTempFiles.insert(record.tempFilePath) }
            }
            if stale, OSSRecordDirectory.isOlder(entry.modified, than: olderThan, now: now) {
                try directory.remove(name: name)
                report.removedRecords.append(path)
            } else {
                report.keptRecords.append(path)
                if case .download(let record) = entry.content { liveTempFiles.insert(record.tempFilePath) }
            }
        }
        // Record temporaries (`.<name>.tmp-<hex>`), and lock files and download journals whose record is gone.
        for name in names where OSSRecordDirectory.kind(ofRecordName: name) == nil {
            let path = directory.store.recordPath(name: name)
            guard OSSRecordDirectory.isOlder(OSSRecordDirectory.modificationDate(path), than: olderThan, now: now) else {
                continue
            }
            if name.hasPrefix(".") && name.contains(".record.tmp-") {
                if (try? FileManager.default.removeItem(atPath: path)) != nil {
                    report.removedTemporaryFiles.append(path)
                }
            } else if name.hasSuffix(".journal") {
                let recordName = String(name.dropLast(".journal".count))
                guard OSSRecordDirectory.kind(ofRecordName: recordName) == .download, !recordNames.contains(recordName),
                    !FileManager.default.fileExists(atPath: directory.store.recordPath(name: recordName))
                else { continue }
                if (try? FileManager.default.removeItem(atPath: path)) != nil {
                    report.removedTemporaryFiles.append(path)
                }
            } else if name.hasSuffix(".lock") {
                let recordName = String(name.dropLast(".lock".count))
                guard OSSRecordDirectory.kind(ofRecordName: recordName) != nil, !recordNames.contains(recordName),
                    !FileManager.default.fileExists(atPath: directory.store.recordPath(name: recordName))
                else { continue }
                // A held lock means a transfer is starting right now. Releasing a lock removes its file.
                guard Self.takeAndRelease(lockAt: path) else { continue }
                if !FileManager.default.fileExists(atPath: path) {
                    report.removedTemporaryFiles.append(path)
                }
            }
        }
        // Download temporaries no record refers to.
        for folder in temporaryFileDirectories {
            let folderPath = OSSRecordStore.absolutePath(folder)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: folderPath) else { continue }
            for file in files.sorted() {
                guard let marker = file.range(of: ".osstmp-", options: .backwards) else { continue }
                let suffix = file[marker.upperBound...]
                guard !suffix.isEmpty, suffix.allSatisfy(\.isHexDigit) else { continue }
                let path = folderPath + "/" + file
                guard !liveTempFiles.contains(path),
                    OSSRecordDirectory.isOlder(OSSRecordDirectory.modificationDate(path), than: olderThan, now: now)
                else { continue }
                if (try? FileManager.default.removeItem(atPath: path)) != nil {
                    report.removedTemporaryFiles.append(path)
                }
            }
        }
        return report
    }

    /// Takes the lock at `path` and releases it at once (which removes its file); false when it is held.
    private static func takeAndRelease(lockAt path: String) -> Bool {
        guard let lock = try? OSSRecordLock.acquire(path: path) else { return false }
        withExtendedLifetime(lock) {}
        return true
    }
}
