#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

extension OSSBatchRunner {
    /// Fetches one object into its file, whose directories are made first under the local directory (never
    /// through a link unless links are followed): below the threshold with one GetObject into a temporary file
    /// renamed over the destination, else as a resumable download whose record lives in the batch's `records`
    /// directory. CRC-64 checked either way; the file then gets the object's `Last-Modified`.
    func download(_ work: OSSBatchWork, _ summary: OSSObjectSummary, meter: OSSBatchFileMeter) async throws
        -> OSSBatchItemOutcome
    {
        if await downloadedByEarlierRun(work, summary) {
            meter.foundDone()
            return .downloaded
        }
        try await OSSBatchPaths.makeParent(
            root: root, relativePath: work.relativePath, followsLinks: options.symbolicLinks == .follow)
        let destination = URL(fileURLWithPath: localPath(work.relativePath))
        let written: Date?
        if let fileTransport {
            written = try await downloadTransported(work, summary, to: destination, fileTransport) ?? summary.lastModified
        } else if isResumable(work) {
            var download = OSSResumableDownloadRequest(
                bucketName: request.bucketName, objectKey: work.key, downloadToFileURL: destination,
                partSize: options.partSize, threadNum: options.partsPerFile, recordDirectoryPath: directory?.recordsPath,
                crcFlag: crcEnabled, objectChangedPolicy: .restartOnce, downloadProgress: meter.handler)
            download.priority = options.priority
            download.baseDirectoryURL = baseDirectoryURL
            download.versionId = work.versionId
            download.progressGranularity = .bytes
            let request = download
            let result = try await control.withPauseHook({ request.pause() }) {
                try await client.resumableDownload(request)
            }
            written = result.lastModified.flatMap(OSSDateFormat.parseRFC1123) ?? summary.lastModified
        } else {
            var get = OSSGetObjectRequest(bucketName: request.bucketName, objectKey: work.key, downloadProgress: meter.handler)
            get.crcFlag = crcEnabled
            get.versionId = work.versionId
            let scheduler = client.scheduler
            let priority = options.priority
            let bytes = min(work.bytes, OSSTransferLimits.streamedPartBuffer)
            let result = try await scheduler.withTransferSlot(priority: priority) {
                try await scheduler.withPartSlot(priority: priority, bytes: bytes) {
                    try await client.getObject(get, toFile: destination)
                }
            }
            written = result.lastModified ?? summary.lastModified
        }
        if let written { try await setModificationDate(written, of: work.relativePath) }
        return .downloaded
    }

    /// Whether a small object an earlier run had in flight when it stopped is in place already: its process may have
    /// finished the download (the rename, then the time) after its last journal entry. The file (not a link) must
    /// have the object's size and its `Last-Modified` as modification time; any doubt downloads it.
    private func downloadedByEarlierRun(_ work: OSSBatchWork, _ summary: OSSObjectSummary) async -> Bool {
        guard wasInFlight(work), !isResumable(work), let written = summary.lastModified else { return false }
        let path = localPath(work.relativePath)
        return await OSSBlockingIO.run {
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, Int64(st.st_size) == summary.size else {
                return false
            }
            let modified = Double(OSSDirectoryWalker.modificationNanoseconds(st)) / 1e9
            return abs(modified - written.timeIntervalSince1970) < 0.000_001
        }
    }

    /// Gives the file the object's `Last-Modified`, so the next sync finds it unchanged.
    func setModificationDate(_ date: Date, of relativePath: String) async throws {
        let path = localPath(relativePath)
        try await OSSBlockingIO.run { () throws(OSSClientError) in
            do {
                try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
            } catch {
                throw OSSClientError(.fileCantWrite, "cannot set the modification time of \(path)", underlying: error)
            }
        }
    }

    /// Deletes a local file a download sync found extra, if it is still the file the walk saw (same device,
    /// inode, size and modification time; a link is removed, never followed).
    func deleteFile(_ relativePath: String, seen entry: OSSLocalEntry) async throws -> OSSBatchItemOutcome {
        let path = localPath(relativePath)
        let problem = await OSSBlockingIO.run { () -> OSSBatchItemProblem? in
            var st = stat()
            guard lstat(path, &st) == 0 else {
                return errno == ENOENT ? nil : .failed(OSSBatchFailure(OSSClientError.file(writing: true, "cannot inspect \(path)", errno: errno)))
            }
            let unchanged =
                UInt64(truncatingIfNeeded: st.st_dev) == entry.device && UInt64(st.st_ino) == entry.inode
                && Int64(st.st_size) == entry.size
                && OSSDirectoryWalker.modificationNanoseconds(st) == entry.modificationNanoseconds
            guard unchanged else {
                return .failed(OSSBatchFailure(.fileChanged, "\(path) changed since it was listed; it was not deleted"))
            }
            guard unlink(path) == 0 || errno == ENOENT else {
                return .failed(OSSBatchFailure(OSSClientError.file(writing: true, "cannot delete \(path)", errno: errno)))
            }
            return nil
        }
        if let problem { throw problem }
        return .deleted
    }
}
