#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ListMultipartUploads: uploads started but neither completed nor aborted.
public struct OSSListMultipartUploadsRequest: Sendable {
    public var bucketName: String
    public var prefix: String?
    public var delimiter: String?
    public var keyMarker: String?
    public var uploadIdMarker: String?
    /// At most 1000.
    public var maxUploads: Int?

    public init(
        bucketName: String, prefix: String? = nil, delimiter: String? = nil, keyMarker: String? = nil,
        uploadIdMarker: String? = nil, maxUploads: Int? = nil
    ) {
        self.bucketName = bucketName
        self.prefix = prefix
        self.delimiter = delimiter
        self.keyMarker = keyMarker
        self.uploadIdMarker = uploadIdMarker
        self.maxUploads = maxUploads
    }
}

/// One upload in progress.
public struct OSSMultipartUploadInfo: Sendable, Hashable {
    public var objectKey: String
    public var uploadId: String
    public var initiated: Date?
}

/// One page of ListMultipartUploads.
public struct OSSListMultipartUploadsResult: Sendable {
    public var bucketName: String
    public var prefix: String?
    public var delimiter: String?
    public var keyMarker: String?
    public var uploadIdMarker: String?
    public var nextKeyMarker: String?
    public var nextUploadIdMarker: String?
    public var maxUploads: Int?
    public var isTruncated: Bool
    public var uploads: [OSSMultipartUploadInfo]
    public var commonPrefixes: [String]
    public var requestId: String
}
