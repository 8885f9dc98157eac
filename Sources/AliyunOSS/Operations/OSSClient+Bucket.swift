#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension OSSClient {
    /// PutBucket: creates `bucketName`.
    @discardableResult
    public func putBucket(_ request: OSSPutBucketRequest) async throws -> OSSBucketResult {
        try await perform(request)
    }

    /// DeleteBucket: deletes an empty bucket (`BucketNotEmpty` otherwise).
    @discardableResult
    public func deleteBucket(_ request: OSSDeleteBucketRequest) async throws -> OSSBucketResult {
        try await perform(request)
    }

    /// ListBuckets: the buckets of the account.
    public func listBuckets(_ request: OSSListBucketsRequest = OSSListBucketsRequest()) async throws
        -> OSSListBucketsResult
    {
        try await perform(request)
    }

    /// DescribeRegions (`GET /?regions`, no bucket): every region's endpoints, or one region's
    /// (`oss-cn-hangzhou`).
    public func describeRegions(region: String? = nil) async throws -> OSSDescribeRegionsResult {
        try await perform(OSSDescribeRegionsRequest(regions: region ?? ""))
    }

    /// GetBucketInfo: the bucket's creation date, endpoints, location, storage class, owner and ACL.
    public func getBucketInfo(_ request: OSSGetBucketInfoRequest) async throws -> OSSGetBucketInfoResult {
        try await perform(request)
    }

    /// GetBucketLocation: the bucket's region as `oss-<region>`.
    public func getBucketLocation(_ request: OSSGetBucketLocationRequest) async throws -> OSSGetBucketLocationResult {
        try await perform(request)
    }
}

extension OSSPutBucketRequest: OSSBucketOperation {
    typealias Result = OSSBucketResult
    var api: OSSAPI { OSSAPI("PutBucket", "PUT") }
    static var parameters: [OSSParameter<Self>] { [.header("x-oss-acl", \.acl)] }
    var body: Configuration? { Configuration(storageClass: storageClass) }

    /// `<CreateBucketConfiguration><StorageClass>…</StorageClass></CreateBucketConfiguration>`.
    struct Configuration: OSSXMLDocument, Encodable {
        static let root = "CreateBucketConfiguration"
        var storageClass: String?
    }
}

extension OSSDeleteBucketRequest: OSSBucketOperation {
    typealias Result = OSSBucketResult
    var api: OSSAPI { OSSAPI("DeleteBucket", "DELETE") }
}

extension OSSBucketResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        try await response.body.drain()
        return Self(statusCode: response.status, requestId: response.requestId)
    }
}

extension OSSListBucketsRequest: OSSDeclaredOperation {
    typealias Result = OSSListBucketsResult
    var api: OSSAPI { OSSAPI("ListBuckets", "GET") }
    static var parameters: [OSSParameter<Self>] {
        [
            .query("prefix", \.prefix), .query("marker", \.marker), .query("max-keys", \.maxKeys),
            .query("tag-key", \.tagKey), .query("tag-value", \.tagValue),
        ]
    }

    func validate() throws {
        if tagValue != nil, tagKey == nil {
            throw OSSClientError.invalidArgument("ListBuckets: a tagValue filters with its tagKey")
        }
    }
}

extension OSSListBucketsResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let list = try await response.xml(Document.self)
        return Self(
            buckets: (list.buckets?.bucket ?? []).map {
                OSSBucketSummary(
                    name: $0.name, location: $0.location, creationDate: $0.creationDate,
                    storageClass: $0.storageClass, region: $0.region)
            },
            isTruncated: list.isTruncated ?? false, nextMarker: list.nextMarker, requestId: response.requestId)
    }

    /// `<ListAllMyBucketsResult>…<Buckets><Bucket>…</Bucket>…</Buckets></ListAllMyBucketsResult>`.
    struct Document: OSSXMLDocument, Decodable {
        static let root = "ListAllMyBucketsResult"
        var isTruncated: Bool?
        var nextMarker: String?
        var buckets: Buckets?

        /// The wrapper `<Buckets>`.
        struct Buckets: Decodable { var bucket: [OSSBucketElement] }
    }
}

/// A `<Bucket>`, as ListBuckets and GetBucketInfo describe one.
struct OSSBucketElement: Decodable {
    var name: String
    var location: String?
    var creationDate: Date?
    var storageClass: String?
    var region: String?
    var extranetEndpoint: String?
    var intranetEndpoint: String?
    var owner: OSSOwnerElement?
    var accessControlList: OSSAccessControlListElement?
    var versioning: OSSVersioningStatus?
}

extension OSSGetBucketInfoRequest: OSSBucketOperation {
    typealias Result = OSSGetBucketInfoResult
    var api: OSSAPI { OSSAPI("GetBucketInfo", "GET", subresource: "bucketInfo") }
}

extension OSSGetBucketInfoResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        let bucket = try await response.xml(Document.self).bucket
        return Self(
            bucketName: bucket.name, creationDate: bucket.creationDate, extranetEndpoint: bucket.extranetEndpoint,
            intranetEndpoint: bucket.intranetEndpoint, location: bucket.location, region: bucket.region,
            storageClass: bucket.storageClass, ownerId: bucket.owner?.id, ownerDisplayName: bucket.owner?.displayName,
            acl: bucket.accessControlList?.grant, versioning: bucket.versioning, requestId: response.requestId)
    }

    /// `<BucketInfo><Bucket>…</Bucket></BucketInfo>`.
    struct Document: OSSXMLDocument, Decodable {
        static let root = "BucketInfo"
        var bucket: OSSBucketElement
    }
}

extension OSSGetBucketLocationRequest: OSSBucketOperation {
    typealias Result = OSSGetBucketLocationResult
    var api: OSSAPI { OSSAPI("GetBucketLocation", "GET", subresource: "location") }
}

extension OSSGetBucketLocationResult: OSSDeclaredResult {
    /// `<LocationConstraint>oss-cn-hangzhou</LocationConstraint>`.
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(location: try await response.xml(String.self, root: "LocationConstraint"), requestId: response.requestId)
    }
}

/// The result of DescribeRegions.
public struct OSSDescribeRegionsResult: Sendable {
    public var regions: [OSSRegionInfo]
    public var requestId: String
}

/// A region's endpoints (`<RegionInfo>`).
public struct OSSRegionInfo: Decodable, Sendable, Hashable {
    /// `oss-cn-hangzhou`.
    public var region: String
    public var internetEndpoint: String?
    public var internalEndpoint: String?
    public var accelerateEndpoint: String?
}

/// `GET /?regions[=region]`.
struct OSSDescribeRegionsRequest: OSSDeclaredOperation {
    typealias Result = OSSDescribeRegionsResult
    var regions: String
    var api: OSSAPI { OSSAPI("DescribeRegions", "GET") }
    static var parameters: [OSSParameter<Self>] { [.query("regions", \.regions)] }
}

extension OSSDescribeRegionsResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(regions: try await response.xml(Document.self).regions, requestId: response.requestId)
    }

    /// `<RegionInfoList><RegionInfo>…</RegionInfo>…</RegionInfoList>`.
    struct Document: OSSXMLDocument, Decodable {
        static let root = "RegionInfoList"
        var regions: [OSSRegionInfo]
        enum CodingKeys: String, CodingKey { case regions = "RegionInfo" }
    }
}

extension OSSClient {
    /// GetBucketStat (`GET /?stat`): the bucket's storage, object and multipart upload counts.
    public func getBucketStat(bucketName: String) async throws -> OSSGetBucketStatResult {
        try await perform(
            OSSCall(OSSAPI("GetBucketStat", "GET", subresource: "stat"), bucket: bucketName, as: OSSGetBucketStatResult.self))
    }

    /// Whether the bucket exists, asked with GetBucketAcl as the official SDKs do: `NoSuchBucket` is `false`; a
    /// bucket that answers, or refuses the caller (`AccessDenied`: it exists but belongs to someone else), is `true`.
    /// Any other failure is thrown.
    public func doesBucketExist(_ bucketName: String) async throws -> Bool {
        do {
            _ = try await getBucketACL(OSSGetBucketACLRequest(bucketName: bucketName))
            return true
        } catch let error as OSSServerError where error.code == "NoSuchBucket" {
            return false
        } catch let error as OSSServerError where error.code == "AccessDenied" {
            return true
        }
    }
}

extension OSSGetBucketStatResult: OSSDeclaredResult {
    static func decode(_ response: OSSHTTPResponse) async throws -> Self {
        Self(stat: try await response.xml(OSSBucketStat.self, root: "BucketStat"), requestId: response.requestId)
    }
}
