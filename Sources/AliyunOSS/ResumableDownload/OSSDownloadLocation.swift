#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import OSSResumable

/// Where a resumable download's destination, temporary file and checkpoint record are, and the names the record
/// and resume tokens know them by (see ``OSSUploadLocation``).
struct OSSDownloadLocation {
    /// The destination (absolute).
    let destinationPath: String
    /// The destination as records and tokens hold it (relative to ``base`` when there is one).
    let storedDestinationPath: String
    let base: OSSBaseDirectory?
    let store: OSSRecordStore?
    let recordName: String
    /// The temporary file beside the destination (absolute).
    let tempFilePath: String

    /// - Throws: ``OSSClientError`` `invalidArgument` for a base directory that is not a file URL, or a
    ///   destination outside it.
    init(request: OSSResumableDownloadRequest, requestedRange: OSSRequestedRange?) throws {
        base = try OSSBaseDirectory.of(request.baseDirectoryURL)
        destinationPath = OSSRecordStore.absolutePath(request.downloadToFileURL.path)
        storedDestinationPath = try OSSBaseDirectory.storedPath(of: destinationPath, base: base, role: "downloadToFileURL")
        store = OSSBaseDirectory.recordStore(request.recordDirectoryPath, base: base)
        recordName = OSSRecordStore.downloadRecordName(
            bucket: request.bucketName, key: request.objectKey, requestedRange: requestedRange,
            destinationPath: storedDestinationPath)
        if let store {
            // Deterministic, so a fresh start after a lost or corrupt record reuses (truncates) the same file;
            // named from the record's full path (in its stored form, so it survives a move of the base
            // directory), so downloads recorded in different directories never share it.
            let recordPath = store.recordPath(name: recordName)
            let digest = SHA256.hash(data: Array((base?.portable(recordPath) ?? recordPath).utf8))
            tempFilePath =
                destinationPath + ".osstmp-" + digest.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        } else {
            tempFilePath = destinationPath + ".osstmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        }
    }

    /// The record of `token`, checked against the download, with its paths resolved against the base directory.
    ///
    /// - Throws: ``OSSClientError`` `invalidArgument` naming the first field that differs.
    func resumeRecord(
        from token: OSSResumeToken, bucket: String, key: String, requestedRange: OSSRequestedRange?, crcMode: OSSCRCMode
    ) throws -> OSSDownloadRecord {
        let record = try token.relativized(to: base).downloadRecord(
            bucket: bucket, key: key, destinationPath: storedDestinationPath, requestedRange: requestedRange,
            crcMode: crcMode)
        return try OSSResumeToken.resolving(record, against: base)
    }

    /// The resume token of `record` (paths relative to the base directory when there is one).
    func token(for record: OSSDownloadRecord) -> OSSResumeToken {
        OSSResumeToken(download: record, base: base)
    }
}
