import AliyunOSS
import Crypto
import Foundation

/// Directory and list transfers, encrypted: give the encryption client to
/// `OSSTransferManager(client:recordDirectoryPath:fileTransport:)` and its batches (``OSSTransferManager/uploadDirectory(_:toBucket:prefix:options:)``,
/// `downloadDirectory`, `uploadBatch` of files, `downloadBatch`, syncs) keep their walk, filters, journal, resume after
/// a kill, pause and report, while each file is encrypted on its way up and decrypted on its way down: below
/// ``OSSDirectoryTransferOptions/singleRequestThreshold`` with one request, above it with the resumable
/// ``uploadFile(_:bucketName:objectKey:partSize:recordURL:metadata:contentType:threadNum:partUploaded:recordNotice:)`` and
/// ``downloadFile(bucketName:objectKey:to:partSize:recordURL:threadNum:partDownloaded:recordNotice:)`` (the part size rounded up
/// to a multiple of 16, ``OSSDirectoryTransferOptions/partsPerFile`` parts at a time), whose records live in the
/// batch's directory and hold only the wrapped data key.
///
/// A sync by size and modification time works as for plain objects (AES-CTR keeps the size; the batch's
/// `x-oss-meta-mtime` travels with the envelope); a sync by checksum compares the file with the ciphertext's CRC-64,
/// so it always sends.
extension OSSEncryptionClient: OSSBatchFileTransport {
    /// The identifier a batch records for this transport.
    public static let batchTransportIdentifier = "client-side-encryption"

    public var identifier: String { Self.batchTransportIdentifier }

    public func uploadFile(
        _ file: URL, bucketName: String, objectKey: String, metadata: [String: String],
        options: OSSDirectoryTransferOptions, recordDirectory: URL?
    ) async throws {
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
        if size < options.singleRequestThreshold {
            var request = OSSPutObjectRequest(bucketName: bucketName, objectKey: objectKey, fileURL: file)
            request.metadata = metadata
            _ = try await putObject(request)
        } else {
            _ = try await uploadFile(
                file, bucketName: bucketName, objectKey: objectKey, partSize: Self.alignedPartSize(options.partSize),
                recordURL: recordDirectory.map { Self.recordURL(in: $0, "upload", bucketName, objectKey) },
                metadata: metadata, threadNum: options.partsPerFile)
        }
    }

    public func downloadFile(
        bucketName: String, objectKey: String, versionId: String?, size: Int64, to destination: URL,
        options: OSSDirectoryTransferOptions, recordDirectory: URL?
    ) async throws -> Date? {
        if size < options.singleRequestThreshold || versionId != nil {
            let request = OSSGetObjectRequest(bucketName: bucketName, objectKey: objectKey, versionId: versionId)
            return try await getObject(request, toFile: destination).lastModified
        }
        return try await downloadFile(
            bucketName: bucketName, objectKey: objectKey, to: destination,
            partSize: Self.alignedPartSize(options.partSize),
            recordURL: recordDirectory.map { Self.recordURL(in: $0, "download", bucketName, objectKey) },
            threadNum: options.partsPerFile
        ).head.lastModified
    }

    /// `partSize` rounded up to a multiple of 16 (each part starts at its own counter block).
    static func alignedPartSize(_ partSize: Int64) -> Int64 {
        let block = Int64(OSSContentKey.blockLength)
        return max(block, (partSize + block - 1) / block * block)
    }

    /// The record of one transfer in a batch's record directory: named by a digest of what it moves.
    static func recordURL(in directory: URL, _ kind: String, _ bucketName: String, _ objectKey: String) -> URL {
        let digest = SHA256.hash(data: Data("\(kind)\n\(bucketName)\n\(objectKey)".utf8))
        let name = digest.map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent("encrypted-\(kind)-\(name).json")
    }
}
