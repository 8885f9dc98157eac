#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Moves each file of a batch instead of the batch's own PutObject, GetObject and resumable transfers, for bytes that
/// change on the device on their way (client-side encryption: `AliyunOSSEncryption`'s `OSSEncryptionClient`
/// conforms). The rest stays the batch's: the walk and its filters, sync decisions, the journal, pause, resume and
/// cancel, progress per file and the report.
///
/// Give it to ``OSSTransferManager/init(client:recordDirectoryPath:baseDirectoryURL:threadNum:progressGranularity:backgroundService:fileTransport:)``.
/// Every batch that manager starts records the transport's ``identifier`` in
/// ``OSSDirectoryTransferOptions/fileTransport``, and a batch runs or resumes only in a manager whose transport has
/// the identifier it recorded (`invalidArgument` otherwise), so a batch is never sent half one way, half the other.
public protocol OSSBatchFileTransport: Sendable {
    /// What a batch's journal records of the transport (for example `client-side-encryption`).
    var identifier: String { get }

    /// Uploads `file` to `objectKey` with `metadata` (the options' ``OSSDirectoryTransferOptions/objectMetadata``
    /// and the batch's `x-oss-meta-mtime`). `recordDirectory`, when given, is the batch's own directory for the
    /// records of resumable transfers: a file at least ``OSSDirectoryTransferOptions/singleRequestThreshold`` long
    /// should resume from there after a stop or a kill.
    func uploadFile(
        _ file: URL, bucketName: String, objectKey: String, metadata: [String: String],
        options: OSSDirectoryTransferOptions, recordDirectory: URL?
    ) async throws

    /// Downloads `objectKey` (`versionId`, when given) of `size` bytes into `destination`, which it replaces only
    /// once the bytes are complete and checked; resumable from `recordDirectory` as ``uploadFile(_:bucketName:objectKey:metadata:options:recordDirectory:)``.
    /// Returns the object's `Last-Modified` when it knows it (the file is given that modification time).
    func downloadFile(
        bucketName: String, objectKey: String, versionId: String?, size: Int64, to destination: URL,
        options: OSSDirectoryTransferOptions, recordDirectory: URL?
    ) async throws -> Date?
}

extension OSSBatchRunner {
    /// ``fileTransport``'s upload of one file of the batch, under a transfer slot.
    func uploadTransported(_ work: OSSBatchWork, _ transport: any OSSBatchFileTransport) async throws {
        let path = localPath(of: work)
        let stamp = try await OSSFile.withFile(path, .read) { try $0.stamp() }
        let records = directory.map { URL(fileURLWithPath: $0.recordsPath, isDirectory: true) }
        try await client.scheduler.withTransferSlot(priority: options.priority) {
            try await transport.uploadFile(
                URL(fileURLWithPath: path), bucketName: request.bucketName, objectKey: work.key,
                metadata: objectMetadata(modificationNanoseconds: stamp.modificationNanoseconds, item: work.metadata),
                options: options, recordDirectory: records)
        }
    }

    /// ``fileTransport``'s download of one object of the batch, under a transfer slot; returns its `Last-Modified`.
    func downloadTransported(
        _ work: OSSBatchWork, _ summary: OSSObjectSummary, to destination: URL, _ transport: any OSSBatchFileTransport
    ) async throws -> Date? {
        let records = directory.map { URL(fileURLWithPath: $0.recordsPath, isDirectory: true) }
        return try await client.scheduler.withTransferSlot(priority: options.priority) {
            try await transport.downloadFile(
                bucketName: request.bucketName, objectKey: work.key, versionId: work.versionId, size: summary.size,
                to: destination, options: options, recordDirectory: records)
        }
    }
}
