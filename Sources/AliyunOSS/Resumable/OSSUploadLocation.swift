#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSResumable

/// Where a resumable upload's file and checkpoint record are, and the names the record and resume tokens know
/// them by: absolute paths, or — with ``OSSResumableUploadRequest/baseDirectoryURL`` — paths relative to the
/// base directory, so that a move of that directory (an iOS container after an app update) keeps the record.
struct OSSUploadLocation {
    /// The file to read (absolute).
    let filePath: String
    /// The file as records and tokens hold it (relative to ``base`` when there is one).
    let storedFilePath: String
    let base: OSSBaseDirectory?
    /// The record store (records' paths made relative to ``base`` on save, resolved on load); `nil` without a
    /// record directory.
    let store: OSSRecordStore?
    let recordName: String

    /// - Throws: ``OSSClientError`` `invalidArgument` for a base directory that is not a file URL, or a file
    ///   outside it.
    init(request: OSSResumableUploadRequest, requestedPartSize: Int64, crcMode: OSSCRCMode) throws {
        base = try OSSBaseDirectory.of(request.baseDirectoryURL)
        filePath = OSSRecordStore.absolutePath(request.uploadingFileURL.path)
        storedFilePath = try OSSBaseDirectory.storedPath(of: filePath, base: base, role: "uploadingFileURL")
        store = OSSBaseDirectory.recordStore(request.recordDirectoryPath, base: base)
        recordName = OSSRecordStore.uploadRecordName(
            filePath: storedFilePath, bucket: request.bucketName, key: request.objectKey,
            requestedPartSize: requestedPartSize, crcMode: crcMode)
    }

    /// The record of `token`, checked against the upload, with its paths resolved against the base directory.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first field that differs.
    func resumeRecord(from token: OSSResumeToken, bucket: String, key: String, requestedPartSize: Int64, crcMode: OSSCRCMode)
        throws -> OSSUploadRecord
    {
        let record = try token.relativized(to: base).uploadRecord(
            bucket: bucket, key: key, filePath: storedFilePath, requestedPartSize: requestedPartSize, crcMode: crcMode)
        return try OSSResumeToken.resolving(record, against: base)
    }

    /// The resume token of `record` (paths relative to the base directory when there is one).
    func token(for record: OSSUploadRecord) -> OSSResumeToken {
        OSSResumeToken(upload: record, base: base)
    }
}
