/// `<BucketStat>` (GetBucketStat): how much a bucket holds. OSS refreshes these figures within the hour, so they
/// can lag behind the latest writes.
public struct OSSBucketStat: Codable, Sendable, Hashable {
    /// Bytes stored, all storage classes.
    public var storage: Int64
    public var objectCount: Int64
    /// Multipart uploads initiated and neither completed nor aborted.
    public var multipartUploadCount: Int64
    public var liveChannelCount: Int64?
    /// When the figures were taken (Unix seconds).
    public var lastModifiedTime: Int64?
    public var standardStorage: Int64?
    public var standardObjectCount: Int64?
    public var infrequentAccessStorage: Int64?
    /// Billed bytes (IA, Archive and colder bill small objects as 64 KB).
    public var infrequentAccessRealStorage: Int64?
    public var infrequentAccessObjectCount: Int64?
    public var archiveStorage: Int64?
    public var archiveRealStorage: Int64?
    public var archiveObjectCount: Int64?
    public var coldArchiveStorage: Int64?
    public var coldArchiveRealStorage: Int64?
    public var coldArchiveObjectCount: Int64?
    public var deepColdArchiveStorage: Int64?
    public var deepColdArchiveRealStorage: Int64?
    public var deepColdArchiveObjectCount: Int64?
    public var multipartPartCount: Int64?
    public var deleteMarkerCount: Int64?
}

/// The result of GetBucketStat.
public struct OSSGetBucketStatResult: Sendable {
    public var stat: OSSBucketStat
    public var requestId: String
}
