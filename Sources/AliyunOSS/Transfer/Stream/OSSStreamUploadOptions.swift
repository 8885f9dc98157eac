#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How ``OSSClient/uploadStream(_:bucket:key:options:)`` uploads a stream of unknown length.
///
/// ## Part sizes
///
/// The stream is cut into parts as it arrives. Part `n` (from 1) is
/// `min(partSize × 2^((n − 1) / 1000), 5 GiB)` bytes: parts 1–1000 are ``partSize``, parts 1001–2000 twice that,
/// and so on. The 10,000 parts OSS allows then hold `partSize × 1,023,000` bytes (about 7.8 TiB with the default
/// 8 MiB; ``maximumLength`` has the exact figure). A stream longer than that fails with `.invalidArgument` and
/// its upload is aborted.
///
/// ## Memory
///
/// At most ``concurrency`` parts are in flight and one more is being filled: the upload holds at most
/// `(concurrency + 1) ×` the current part size of the stream's bytes, plus the one element of the sequence it is
/// reading, however long the stream.
public struct OSSStreamUploadOptions: Sendable {
    /// The smallest part OSS accepts (all but the last part): 100 KiB.
    public static let minimumPartSize = 102_400
    /// The largest part OSS accepts: 5 GiB.
    public static let maximumPartSize = 5 << 30
    /// The most parts of one multipart upload.
    public static let maximumPartCount = 10_000

    /// The size of the first parts (and the threshold below which the stream goes as one PutObject), from
    /// ``minimumPartSize`` to ``maximumPartSize``. Default 8 MiB.
    public var partSize: Int
    /// Parts uploaded at once, at least 1. Default 3.
    public var concurrency: Int
    /// Where the upload queues in the client's ``OSSClient/scheduler``: for its transfer slot, and each part for a
    /// part slot and its whole length of the memory budget (a stream's part is held in memory). Default `.normal`.
    public var priority: OSSTransferPriority = .normal
    /// `Content-Type`; when nil (and none in ``headers``) it is guessed from the object key's extension, else
    /// `application/octet-stream`.
    public var contentType: String?
    /// Object metadata: user metadata with or without the `x-oss-meta-` prefix, and standard headers
    /// (`Cache-Control`, `x-oss-storage-class`, ...) sent as themselves.
    public var metadata: [String: String]
    /// Other headers for PutObject or InitiateMultipartUpload (`x-oss-object-acl`, `x-oss-forbid-overwrite`, ...).
    public var headers: [String: String]
    /// An upload callback, sent with PutObject or CompleteMultipartUpload; its answer is in
    /// ``OSSStreamUploadResult/serverCallbackBody``.
    public var callback: OSSCallback?
    /// Progress of the bytes sent: `(bytesSent, totalBytesSent, -1)` (the total is unknown). Reports are in
    /// order and the total never runs backwards (a part sent again is not counted twice).
    public var uploadProgress: OSSProgressHandler?
    /// Whether CRC-64 is checked (each part, and the whole object after CompleteMultipartUpload); `nil` follows
    /// ``OSSClientConfiguration/crcCheckEnabled``.
    public var crcFlag: Bool?

    /// Parts per doubling of the part size (1000 in the public schedule; tests make it small to reach the
    /// larger sizes cheaply).
    var partsPerDoubling = 1000
    /// The most parts (10,000 in the public schedule; tests lower it to reach the limit cheaply).
    var partLimit = maximumPartCount

    public init(
        partSize: Int = 8 << 20, concurrency: Int = 3, contentType: String? = nil, metadata: [String: String] = [:],
        headers: [String: String] = [:], callback: OSSCallback? = nil, uploadProgress: OSSProgressHandler? = nil,
        crcFlag: Bool? = nil
    ) {
        self.partSize = partSize
        self.concurrency = concurrency
        self.contentType = contentType
        self.metadata = metadata
        self.headers = headers
        self.callback = callback
        self.uploadProgress = uploadProgress
        self.crcFlag = crcFlag
    }

    /// The size of part `number` (from 1) under the growth schedule.
    public func partSize(ofPart number: Int) -> Int {
        let doublings = max(0, number - 1) / max(1, partsPerDoubling)
        var size = partSize
        for _ in 0..<doublings {
            guard size < Self.maximumPartSize / 2 else { return Self.maximumPartSize }
            size *= 2
        }
        return min(size, Self.maximumPartSize)
    }

    /// The longest stream the schedule can upload: the sum of the sizes of parts 1 to 10,000.
    public var maximumLength: Int64 {
        (1...max(1, partLimit)).reduce(Int64(0)) { $0 + Int64(partSize(ofPart: $1)) }
    }

    func validate() throws {
        guard (Self.minimumPartSize...Self.maximumPartSize).contains(partSize) else {
            throw OSSClientError.invalidArgument(
                "partSize must be from \(Self.minimumPartSize) to \(Self.maximumPartSize) bytes, not \(partSize)")
        }
        guard concurrency >= 1 else {
            throw OSSClientError.invalidArgument("concurrency must be at least 1, not \(concurrency)")
        }
    }
}

/// The result of ``OSSClient/uploadStream(_:bucket:key:options:)``.
public struct OSSStreamUploadResult: Sendable {
    /// The object's ETag.
    public var eTag: String?
    /// The object's CRC-64: checked against the server's when CRC checking is on (the server's own value
    /// otherwise, when it sent one).
    public var crc64: UInt64?
    /// The number of bytes the stream delivered (the object's size).
    public var totalBytes: Int64
    /// The parts of the multipart upload; 0 when the stream was shorter than one part and went as one PutObject.
    public var partCount: Int
    public var versionId: String?
    /// The request id of the request that created the object (PutObject or CompleteMultipartUpload).
    public var requestId: String
    /// The callback server's answer, when ``OSSStreamUploadOptions/callback`` was set.
    public var serverCallbackBody: Data?
}
