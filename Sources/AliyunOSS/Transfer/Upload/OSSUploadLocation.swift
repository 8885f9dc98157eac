import OSSResumable

/// Where a resumable upload's file and checkpoint record are, and the names the record and resume tokens know
/// them by: absolute paths, or — with ``OSSResumableUploadRequest/baseDirectoryURL`` — paths relative to the
/// base directory, so that a move of that directory (an iOS container after an app update) keeps the record.
struct OSSUploadLocation {
    let paths: OSSTransferLocalPaths
    let recordName: String

    /// The file to read (absolute).
    var filePath: String { paths.localPath }
    var store: OSSRecordStore? { paths.store }

    /// - Throws: ``OSSClientError`` `invalidArgument` for a base directory that is not a file URL, or a file
    ///   outside it.
    init(request: OSSResumableUploadRequest, requestedPartSize: Int64, crcMode: OSSCRCMode) throws {
        paths = try OSSTransferLocalPaths(
            fileURL: request.uploadingFileURL, role: "uploadingFileURL", baseDirectoryURL: request.baseDirectoryURL,
            recordDirectoryPath: request.recordDirectoryPath)
        recordName = OSSRecordStore.uploadRecordName(
            filePath: paths.storedLocalPath, bucket: request.bucketName, key: request.objectKey,
            requestedPartSize: requestedPartSize, crcMode: crcMode, sequential: request.sequential)
    }

    /// The record of `token`, checked against the upload, with its paths resolved against the base directory.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first field that differs.
    func resumeRecord(from token: OSSResumeToken, bucket: String, key: String, requestedPartSize: Int64, crcMode: OSSCRCMode)
        throws -> OSSUploadRecord
    {
        try paths.record(of: token) { token, filePath in
            try token.uploadRecord(
                bucket: bucket, key: key, filePath: filePath, requestedPartSize: requestedPartSize, crcMode: crcMode)
        }
    }

    /// The resume token of `record` (paths relative to the base directory when there is one).
    func token(for record: OSSUploadRecord) -> OSSResumeToken {
        OSSResumeToken(upload: record, base: paths.base)
    }
}
