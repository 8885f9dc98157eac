#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``OSSClient/downloadStream(_:)`` streams: an object, from ``offset`` to its end.
public struct OSSDownloadStreamRequest: Sendable {
    public var bucketName: String
    public var objectKey: String
    /// The first byte to stream (0: the whole object). To resume a stream that stopped, pass the number of bytes
    /// already received, with ``eTag`` (and ``prefixCRC64`` to keep the whole-object CRC-64 check).
    public var offset: Int64
    /// The ETag the object must have (`If-Match` on every request). When nil, the ETag of the first answer is
    /// captured and required from then on, so a stream never mixes two versions of the object.
    public var eTag: String?
    public var versionId: String?
    /// The most bytes the stream reads ahead of its consumer, at least 1; default 4 MiB. The producer waits while
    /// this many are unread, however slow the consumer (the transport buffers at most about 1 MiB more).
    public var bufferSize: Int
    /// The CRC-64 of bytes `0..<offset`, which the caller already has: with it, a resumed stream checks the whole
    /// object's CRC-64 at its end, as a stream from offset 0 does.
    public var prefixCRC64: UInt64?
    /// How many times in a row the stream re-requests its remaining range after a transient failure (a network
    /// error or a 5xx in the middle of the body) without receiving a byte in between; nil follows the client's
    /// ``OSSClientConfiguration/Retry/maxRetryCount``. A failure after progress starts the count again.
    public var maxResumeAttempts: Int?
    /// Other headers for every GetObject (e.g. `x-oss-traffic-limit`).
    public var headers: [String: String]
    /// Whether an object encrypted on the client side is streamed as it is stored (ciphertext). By default the
    /// stream refuses it with ``OSSClientErrorCode/encryptedObject`` at the first answer, before any byte; read
    /// such an object with `OSSEncryptionClient` (whose own stream sets this to decrypt what it receives).
    public var acceptsCiphertext = false
    /// Progress of the bytes handed to the consumer: `(bytes, totalBytes, length)` where `length` is
    /// ``OSSObjectStream/length``.
    public var downloadProgress: OSSProgressHandler?
    /// Whether the whole object's CRC-64 is checked at the end; `nil` follows
    /// ``OSSClientConfiguration/crcCheckEnabled``.
    public var crcFlag: Bool?

    public init(
        bucketName: String, objectKey: String, offset: Int64 = 0, eTag: String? = nil, versionId: String? = nil,
        bufferSize: Int = 4 << 20, prefixCRC64: UInt64? = nil, headers: [String: String] = [:],
        downloadProgress: OSSProgressHandler? = nil
    ) {
        self.bucketName = bucketName
        self.objectKey = objectKey
        self.offset = offset
        self.eTag = eTag
        self.versionId = versionId
        self.bufferSize = bufferSize
        self.prefixCRC64 = prefixCRC64
        self.headers = headers
        self.downloadProgress = downloadProgress
    }

    func validate() throws {
        guard offset >= 0 else { throw OSSClientError.invalidArgument("offset must not be negative, not \(offset)") }
        guard bufferSize >= 1 else { throw OSSClientError.invalidArgument("bufferSize must be at least 1, not \(bufferSize)") }
        if let maxResumeAttempts, maxResumeAttempts < 0 {
            throw OSSClientError.invalidArgument("maxResumeAttempts must not be negative, not \(maxResumeAttempts)")
        }
    }
}
