#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// UploadPart: uploads one part. The body is normally a byte range of a file, streamed.
public struct OSSUploadPartRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    public var uploadId: String
    /// 1...10000.
    public var partNumber: Int
    /// The part's bytes: `.fileRange(url, offset:, length:)` (streamed) or `.data`.
    public var source: OSSUploadSource
    /// Whether to compute and send `Content-MD5` (one extra read pass over a file range).
    public var sendContentMD5: Bool
    public var headers: [String: String]
    public var uploadProgress: OSSProgressHandler?
    /// Whether CRC-64 is checked for this request (the iOS per-request `crcFlag`); `nil` follows the client's
    /// ``OSSClientConfiguration/crcCheckEnabled``.
    public var crcFlag: Bool?

    public init(
        bucketName: String, objectKey: String, uploadId: String, partNumber: Int, source: OSSUploadSource,
        sendContentMD5: Bool = false, headers: [String: String] = [:], uploadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.uploadId = uploadId
        self.partNumber = partNumber
        self.source = source
        self.sendContentMD5 = sendContentMD5
        self.headers = headers
        self.uploadProgress = uploadProgress
    }

    /// A part taken from `length` bytes of the file at `fileURL`, starting at `offset`.
    public init(
        bucketName: String, objectKey: String, uploadId: String, partNumber: Int, fileURL: URL, offset: Int64,
        length: Int64
    ) {
        self.init(
            bucketName: bucketName, objectKey: objectKey, uploadId: uploadId, partNumber: partNumber,
            source: .fileRange(fileURL, offset: offset, length: length))
    }
}

/// The result of UploadPart.
public struct OSSUploadPartResult: Sendable {
    public var partNumber: Int
    /// The part's ETag, quoted as sent. Pass it to CompleteMultipartUpload.
    public var eTag: String
    /// The part's CRC-64 (checked against the bytes sent when `crcCheckEnabled`).
    public var crc64: UInt64?
    /// The number of bytes in the part.
    public var size: Int64
    public var requestId: String
}
