/// The OSS operations the local server implements, named as OSS names them.
///
/// Used to target fault rules and to key the per-operation counters.
public enum LocalOSSOperation: String, Sendable, Codable, CaseIterable, Hashable {
    case listBuckets = "ListBuckets"
    case putBucket = "PutBucket"
    case deleteBucket = "DeleteBucket"
    case getBucketInfo = "GetBucketInfo"
    case getBucketLocation = "GetBucketLocation"
    case listObjects = "ListObjects"
    case listObjectsV2 = "ListObjectsV2"
    case putObject = "PutObject"
    /// `POST /` with a `multipart/form-data` body: a browser form upload, authenticated by its policy fields.
    case postObject = "PostObject"
    case getObject = "GetObject"
    case headObject = "HeadObject"
    case getObjectMeta = "GetObjectMeta"
    case deleteObject = "DeleteObject"
    case deleteMultipleObjects = "DeleteMultipleObjects"
    case initiateMultipartUpload = "InitiateMultipartUpload"
    case uploadPart = "UploadPart"
    case listParts = "ListParts"
    case completeMultipartUpload = "CompleteMultipartUpload"
    case abortMultipartUpload = "AbortMultipartUpload"
    case listMultipartUploads = "ListMultipartUploads"
    case copyObject = "CopyObject"
    case uploadPartCopy = "UploadPartCopy"
    case appendObject = "AppendObject"
    case putObjectACL = "PutObjectACL"
    case getObjectACL = "GetObjectACL"
    case putBucketACL = "PutBucketACL"
    case getBucketACL = "GetBucketACL"
    case putObjectTagging = "PutObjectTagging"
    case getObjectTagging = "GetObjectTagging"
    case deleteObjectTagging = "DeleteObjectTagging"
    case putSymlink = "PutSymlink"
    case getSymlink = "GetSymlink"
    case restoreObject = "RestoreObject"
    /// `POST /key?x-oss-process`: `trigger/callback` (run an upload callback for a stored object) or an image
    /// action saved with `sys/saveas` (not implemented: 501).
    case processObject = "ProcessObject"
    case listLiveChannel = "ListLiveChannel"
    case putLiveChannel = "PutLiveChannel"
    case getLiveChannelInfo = "GetLiveChannelInfo"
    case deleteLiveChannel = "DeleteLiveChannel"
    case putBucketVersioning = "PutBucketVersioning"
    case getBucketVersioning = "GetBucketVersioning"
    /// `GET /?versions` (OSS also calls it GetBucketVersions).
    case listObjectVersions = "ListObjectVersions"
    // Bucket configuration families (RequestHandler+BucketConfiguration.swift).
    case putBucketCors = "PutBucketCors"
    case getBucketCors = "GetBucketCors"
    case deleteBucketCors = "DeleteBucketCors"
    /// A CORS preflight (`OPTIONS`), answered from the bucket's CORS rules.
    case optionObject = "OptionObject"
    case putBucketLifecycle = "PutBucketLifecycle"
    case getBucketLifecycle = "GetBucketLifecycle"
    case deleteBucketLifecycle = "DeleteBucketLifecycle"
    case putBucketReferer = "PutBucketReferer"
    case getBucketReferer = "GetBucketReferer"
    case putBucketTags = "PutBucketTags"
    case getBucketTags = "GetBucketTags"
    case deleteBucketTags = "DeleteBucketTags"
    case putBucketEncryption = "PutBucketEncryption"
    case getBucketEncryption = "GetBucketEncryption"
    case deleteBucketEncryption = "DeleteBucketEncryption"
    case putBucketLogging = "PutBucketLogging"
    case getBucketLogging = "GetBucketLogging"
    case deleteBucketLogging = "DeleteBucketLogging"
    case putBucketWebsite = "PutBucketWebsite"
    case getBucketWebsite = "GetBucketWebsite"
    case deleteBucketWebsite = "DeleteBucketWebsite"
    case putBucketRequestPayment = "PutBucketRequestPayment"
    case getBucketRequestPayment = "GetBucketRequestPayment"
    case putBucketPolicy = "PutBucketPolicy"
    case getBucketPolicy = "GetBucketPolicy"
    case deleteBucketPolicy = "DeleteBucketPolicy"
    case putBucketTransferAcceleration = "PutBucketTransferAcceleration"
    case getBucketTransferAcceleration = "GetBucketTransferAcceleration"
    case getBucketStat = "GetBucketStat"

    /// Looks an operation up by its OSS name, case-insensitively (`uploadpart`, `UploadPart`).
    public init?(name: String) {
        let lower = name.lowercased()
        guard let found = Self.allCases.first(where: { $0.rawValue.lowercased() == lower }) else { return nil }
        self = found
    }
}
