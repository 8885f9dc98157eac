import Foundation
import AliyunOSS

/// An encrypted multipart upload: its id and envelope (the data key and IV wrapped) and, in memory only, the data
/// key. Part N is encrypted at the counter of byte `(N - 1) * partSize`, so the part size must be a multiple of 16 and
/// every part but the last exactly that long; the completed object then decrypts as one AES-CTR stream.
public struct OSSEncryptedMultipartUpload: Sendable {
    public let bucketName: String
    public let objectKey: String
    public let uploadId: String
    /// The envelope given at InitiateMultipartUpload (with the part size and, when known, the data size).
    public let envelope: OSSEncryptionEnvelope
    let contentKey: OSSContentKey

    public var partSize: Int64 { envelope.partSize ?? 0 }
    public var dataSize: Int64? { envelope.dataSize }

    /// The part numbers a plaintext of `dataSize` bytes has.
    public var partCount: Int? {
        dataSize.map { $0 == 0 ? 1 : Int(($0 + partSize - 1) / partSize) }
    }
}

extension OSSEncryptionClient {
    /// Refuses a part size that is not a positive multiple of 16 (``OSSEncryptionError/partSizeNotAligned(_:)``).
    public static func checkPartSize(_ partSize: Int64) throws(OSSEncryptionError) {
        guard partSize > 0, partSize % Int64(OSSContentKey.blockLength) == 0 else { throw .partSizeNotAligned(partSize) }
    }

    /// Starts an encrypted multipart upload: a new data key and IV, the envelope (with `partSize` and `dataSize`, as
    /// the official clients write them) in the request's headers.
    public func initiateMultipartUpload(
        _ request: OSSInitiateMultipartUploadRequest, partSize: Int64, dataSize: Int64?
    ) async throws -> OSSEncryptedMultipartUpload {
        try Self.checkPartSize(partSize)
        if let dataSize, dataSize < 0 { throw OSSEncryptionError.invalidMultipartContext("a negative data size") }
        let contentKey = OSSContentKey.random()
        let envelope = try await makeEnvelope(
            contentKey, dataSize: (dataSize ?? 0) > 0 ? dataSize : nil, partSize: partSize)
        var encrypted = request
        encrypted.headers.merge(envelope.headers) { _, new in new }
        let result = try await client.initiateMultipartUpload(encrypted)
        return OSSEncryptedMultipartUpload(
            bucketName: request.bucketName, objectKey: request.objectKey, uploadId: result.uploadId,
            envelope: envelope, contentKey: contentKey)
    }

    /// Continues an encrypted multipart upload started earlier (by this process or another): `envelope` is the one
    /// it was initiated with, whose data key the master cipher unwraps.
    public func resumeMultipartUpload(
        bucketName: String, objectKey: String, uploadId: String, envelope: OSSEncryptionEnvelope
    ) async throws -> OSSEncryptedMultipartUpload {
        guard let partSize = envelope.partSize else {
            throw OSSEncryptionError.incompleteEnvelope(
                objectKey: objectKey, missing: "x-oss-meta-" + OSSEncryptionEnvelope.Header.partSize)
        }
        try Self.checkPartSize(partSize)
        let contentKey = try await self.contentKey(for: envelope, objectKey: objectKey)
        return OSSEncryptedMultipartUpload(
            bucketName: bucketName, objectKey: objectKey, uploadId: uploadId, envelope: envelope,
            contentKey: contentKey)
    }

    /// Encrypts and uploads part `partNumber` (1-based) of `upload`: `data` is the plaintext of bytes
    /// `(partNumber - 1) * partSize` on, exactly `partSize` long except for the last part.
    public func uploadPart(_ upload: OSSEncryptedMultipartUpload, partNumber: Int, data: Data) async throws
        -> OSSUploadPartResult
    {
        guard partNumber >= 1, partNumber <= 10_000 else {
            throw OSSEncryptionError.invalidMultipartContext("part number \(partNumber) is not 1 to 10000")
        }
        try Self.checkPartSize(upload.partSize)
        let offset = Int64(partNumber - 1) * upload.partSize
        if let dataSize = upload.dataSize {
            let expected = max(0, min(upload.partSize, dataSize - offset))
            guard offset < max(dataSize, 1), Int64(data.count) == expected else {
                throw OSSEncryptionError.invalidMultipartContext(
                    "part \(partNumber) has \(data.count) bytes; the data size \(dataSize) and part size "
                        + "\(upload.partSize) give it \(expected)")
            }
        } else {
            guard Int64(data.count) <= upload.partSize else {
                throw OSSEncryptionError.invalidMultipartContext(
                    "part \(partNumber) has \(data.count) bytes, more than the part size \(upload.partSize)")
            }
        }
        var stream = OSSCTRStream(upload.contentKey, offset: offset)
        var envelope = upload.envelope
        envelope.unencryptedContentLength = nil
        envelope.unencryptedContentMD5 = nil
        return try await client.uploadPart(
            OSSUploadPartRequest(
                bucketName: upload.bucketName, objectKey: upload.objectKey, uploadId: upload.uploadId,
                partNumber: partNumber, source: .data(try stream.apply(data)), headers: envelope.headers))
    }

    /// Completes `upload` with its parts (sorted by number here).
    public func completeMultipartUpload(_ upload: OSSEncryptedMultipartUpload, parts: [OSSPartInfo]) async throws
        -> OSSCompleteMultipartUploadResult
    {
        try await client.completeMultipartUpload(
            OSSCompleteMultipartUploadRequest(
                bucketName: upload.bucketName, objectKey: upload.objectKey, uploadId: upload.uploadId,
                parts: parts.sorted { $0.partNumber < $1.partNumber }))
    }
}
