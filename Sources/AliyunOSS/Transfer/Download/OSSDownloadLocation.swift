import Crypto
import OSSResumable

/// Where a resumable download's destination, temporary file and checkpoint record are, and the names the record
/// and resume tokens know them by (see ``OSSUploadLocation``).
struct OSSDownloadLocation {
    let paths: OSSTransferLocalPaths
    let recordName: String
    /// The temporary file beside the destination (absolute).
    let tempFilePath: String

    /// The destination (absolute).
    var destinationPath: String { paths.localPath }
    var store: OSSRecordStore? { paths.store }

    /// - Throws: ``OSSClientError`` `invalidArgument` for a base directory that is not a file URL, or a
    ///   destination outside it.
    init(request: OSSResumableDownloadRequest, requestedRange: OSSRequestedRange?) throws {
        paths = try OSSTransferLocalPaths(
            fileURL: request.downloadToFileURL, role: "downloadToFileURL", baseDirectoryURL: request.baseDirectoryURL,
            recordDirectoryPath: request.recordDirectoryPath)
        recordName = OSSRecordStore.downloadRecordName(
            bucket: request.bucketName, key: request.objectKey, requestedRange: requestedRange,
            destinationPath: paths.storedLocalPath)
        if let store = paths.store {
            // Deterministic, so a fresh start after a lost or corrupt record reuses (truncates) the same file;
            // named from the record's full path (in its stored form, so it survives a move of the base
            // directory), so downloads recorded in different directories never share it.
            let recordPath = store.recordPath(name: recordName)
            let digest = SHA256.hash(data: Array((paths.base?.portable(recordPath) ?? recordPath).utf8))
            tempFilePath = OSSTemporaryFileName.path(
                beside: paths.localPath, id: OSSTemporaryFileName.hexID(digest.prefix(8)))
        } else {
            tempFilePath = OSSTemporaryFileName.randomPath(beside: paths.localPath)
        }
    }

    /// The record of `token`, checked against the download, with its paths resolved against the base directory.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first field that differs.
    func resumeRecord(
        from token: OSSResumeToken, bucket: String, key: String, requestedRange: OSSRequestedRange?, crcMode: OSSCRCMode
    ) throws -> OSSDownloadRecord {
        try paths.record(of: token) { token, destinationPath in
            try token.downloadRecord(
                bucket: bucket, key: key, destinationPath: destinationPath, requestedRange: requestedRange,
                crcMode: crcMode)
        }
    }

    /// The resume token of `record` (paths relative to the base directory when there is one).
    func token(for record: OSSDownloadRecord) -> OSSResumeToken {
        OSSResumeToken(download: record, base: paths.base)
    }
}
