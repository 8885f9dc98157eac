#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// GetBucket (ListObjects V1): one page of the objects in a bucket, as the iOS SDK's `OSSGetBucketRequest`.
/// Keys are requested with `encoding-type=url` and decoded, so any key lists correctly.
public struct OSSGetBucketRequest: Sendable {
    public var bucketName: String
    /// Only keys starting with this.
    public var prefix: String?
    /// Keys after this one (exclusive), in byte order.
    public var marker: String?
    /// Groups keys by the part up to the first `delimiter` after the prefix into ``OSSGetBucketResult/commonPrefixes``.
    public var delimiter: String?
    /// Keys plus common prefixes per page, 1...1000 (the server's default is 100).
    public var maxKeys: Int?

    public init(
        bucketName: String, prefix: String? = nil, marker: String? = nil, delimiter: String? = nil, maxKeys: Int? = nil
    ) {
        self.bucketName = bucketName
        self.prefix = prefix
        self.marker = marker
        self.delimiter = delimiter
        self.maxKeys = maxKeys
    }
}

/// One page of GetBucket (ListObjects V1).
public struct OSSGetBucketResult: Sendable {
    public var bucketName: String
    public var prefix: String?
    public var marker: String?
    public var delimiter: String?
    public var maxKeys: Int?
    public var isTruncated: Bool
    /// Where the next page starts (a key or a common prefix), when truncated.
    public var nextMarker: String?
    /// The objects (the iOS SDK's `contents`).
    public var contents: [OSSObjectSummary]
    public var commonPrefixes: [String]
    public var requestId: String
}
