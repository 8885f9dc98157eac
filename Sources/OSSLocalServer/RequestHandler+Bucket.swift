import NIOCore
import NIOHTTP1
import OSSSigning
import OSSXML

import Foundation

extension RequestHandler {
    var ownerId: String { configuration.accessKeyId }
    var location: String { "oss-" + configuration.region }
    var extranetEndpoint: String { "\(location).aliyuncs.com" }
    var intranetEndpoint: String { "\(location)-internal.aliyuncs.com" }

    func requireBucket(_ context: RequestContext) throws(LocalOSSError) -> String {
        guard let bucket = context.bucket else { throw .invalidArgument("The request needs a bucket.") }
        return bucket
    }

    func listBuckets(_ context: RequestContext) async throws -> ServerResponse {
        let prefix = context.query["prefix"] ?? ""
        let marker = context.query["marker"] ?? ""
        let maxKeys = try parseLimit(context.query["max-keys"], name: "max-keys", defaultValue: 100)
        var all = await store.listBuckets().filter {
            $0.name.hasPrefix(prefix) && (marker.isEmpty || $0.name > marker)
        }
        if let tagKey = context.query["tag-key"] {
            // `tag-key` (and `tag-value`): only buckets with that tag.
            let tagValue = context.query["tag-value"]
            var tagged: [BucketRecord] = []
            for bucket in all {
                let tags = await storedConfiguration(BucketTagsDocument.self, .tags, bucket: bucket.name)?.set.tags ?? []
                if tags.contains(where: { $0.key == tagKey && (tagValue == nil || ($0.value ?? "") == tagValue) }) { tagged.append(bucket) }
            }
            all = tagged
        } else if context.query["tag-value"] != nil {
            throw LocalOSSError.invalidArgument("tag-value filters with a tag-key.", name: "tag-value")
        }
        let truncated = all.count > maxKeys
        if truncated { all = Array(all.prefix(maxKeys)) }
        var w = OSSXMLWriter()
        w.open("ListAllMyBucketsResult")
        if context.query["prefix"] != nil { w.element("Prefix", prefix) }
        if context.query["marker"] != nil { w.element("Marker", marker) }
        if context.query["max-keys"] != nil { w.element("MaxKeys", String(maxKeys)) }
        if context.query["max-keys"] != nil || truncated { w.element("IsTruncated", truncated ? "true" : "false") }
        if truncated, let last = all.last { w.element("NextMarker", last.name) }
        w.open("Owner")
        w.element("ID", ownerId)
        w.element("DisplayName", ownerId)
        w.close("Owner")
        w.open("Buckets")
        for bucket in all {
            w.open("Bucket")
            w.element("CreationDate", isoDate(bucket.creationDate))
            w.element("ExtranetEndpoint", servedEndpoint(context))
            w.element("IntranetEndpoint", servedEndpoint(context))
            w.element("Location", location)
            w.element("Name", bucket.name)
            w.element("Region", configuration.region)
            w.element("StorageClass", "Standard")
            w.close("Bucket")
        }
        w.close("Buckets")
        w.close("ListAllMyBucketsResult")
        return .xml(w.output)
    }

    /// Regions DescribeRegions lists: the server's own first, then a few of OSS's.
    static let regions = ["oss-cn-hangzhou", "oss-cn-shanghai", "oss-cn-beijing", "oss-cn-shenzhen", "oss-ap-southeast-1", "oss-us-west-1"]

    /// DescribeRegions (`GET /?regions[=oss-cn-hangzhou]`): each region's endpoints; the server's own region's
    /// endpoint is the server.
    func describeRegions(_ context: RequestContext) throws -> ServerResponse {
        let own = location
        var regions = [own] + Self.regions.filter { $0 != own }
        if let wanted = context.query["regions"], !wanted.isEmpty {
            guard regions.contains(wanted) else {
                throw LocalOSSError(404, "NoSuchRegion", "The specified region does not exist.", fields: [("Region", wanted)])
            }
            regions = [wanted]
        }
        var w = OSSXMLWriter()
        w.open("RegionInfoList")
        for region in regions {
            w.open("RegionInfo")
            w.element("Region", region)
            if region == own {
                w.element("InternetEndpoint", servedEndpoint(context))
                w.element("InternalEndpoint", servedEndpoint(context))
            } else {
                w.element("InternetEndpoint", "\(region).aliyuncs.com")
                w.element("InternalEndpoint", "\(region)-internal.aliyuncs.com")
            }
            w.element("AccelerateEndpoint", "oss-accelerate.aliyuncs.com")
            w.close("RegionInfo")
        }
        w.close("RegionInfoList")
        return .xml(w.output)
    }

    func putBucket(_ context: RequestContext, reader: RequestBodyReader) async throws -> ServerResponse {
        let bucket = try requireBucket(context)
        _ = try await reader.collect(limit: 64 << 10)
        _ = try await store.createBucket(bucket, now: context.now)
        var headers = HTTPHeaders()
        headers.add(name: "Location", value: "/" + bucket)
        return ServerResponse(status: .ok, headers: headers)
    }

    func deleteBucket(_ context: RequestContext) async throws -> ServerResponse {
        try await store.deleteBucket(try requireBucket(context))
        return ServerResponse(status: .noContent)
    }

    func getBucketLocation(_ context: RequestContext) async throws -> ServerResponse {
        _ = try await store.bucket(try requireBucket(context))
        var w = OSSXMLWriter()
        w.element("LocationConstraint", location)
        return .xml(w.output)
    }

    func getBucketInfo(_ context: RequestContext) async throws -> ServerResponse {
        let record = try await store.bucket(try requireBucket(context))
        var w = OSSXMLWriter()
        w.open("BucketInfo")
        w.open("Bucket")
        w.element("AccessMonitor", "Disabled")
        w.element("CreationDate", isoDate(record.creationDate))
        w.element("ExtranetEndpoint", servedEndpoint(context))
        w.element("IntranetEndpoint", servedEndpoint(context))
        w.element("Location", location)
        w.element("StorageClass", "Standard")
        w.element("TransferAcceleration", "Disabled")
        w.element("CrossRegionReplication", "Disabled")
        w.element("Name", record.name)
        w.element("Region", configuration.region)
        if let versioning = record.versioning { w.element("Versioning", versioning) }
        // The bucket's default encryption (PutBucketEncryption), or `None` as OSS reports a bucket without one (oss2
        // reads it beside Versioning).
        let encryption = await storedConfiguration(EncryptionDocument.self, .encryption, bucket: record.name)
        w.open("ServerSideEncryptionRule")
        w.element("SSEAlgorithm", encryption?.byDefault.algorithm ?? "None")
        if let key = encryption?.byDefault.keyId, !key.isEmpty { w.element("KMSMasterKeyID", key) }
        if let data = encryption?.byDefault.dataEncryption, !data.isEmpty { w.element("KMSDataEncryption", data) }
        w.close("ServerSideEncryptionRule")
        w.open("Owner")
        w.element("DisplayName", ownerId)
        w.element("ID", ownerId)
        w.close("Owner")
        w.open("AccessControlList")
        w.element("Grant", "private")
        w.close("AccessControlList")
        w.close("Bucket")
        w.close("BucketInfo")
        return .xml(w.output)
    }

    /// Parses a page-size parameter: absent or empty gives `defaultValue`; values above `cap` are capped.
    func parseLimit(_ text: String?, name: String, defaultValue: Int, cap: Int = 1000) throws(LocalOSSError) -> Int {
        guard let text, !text.isEmpty else { return defaultValue }
        guard let n = Int(text), n >= 0 else {
            throw .invalidArgument("Argument \(name) must be a non-negative integer.", name: name, value: text)
        }
        return min(n, cap)
    }

    func isoDate(_ seconds: Int64) -> String {
        OSSDateFormat.iso8601Milliseconds(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// Encodes a value for `encoding-type=url` replies (space as `%20`, `/` as `%2F`).
    func urlEncoded(_ text: String, _ enabled: Bool) -> String {
        enabled ? OSSPercentEncoding.encode(text) : text
    }
}

extension RequestHandler {
    /// The address clients reached this server at (the request's `Host`, without a virtual-host bucket label),
    /// reported as a bucket's extranet and intranet endpoint so that a client following it comes back here.
    func servedEndpoint(_ context: RequestContext) -> String {
        guard let host = context.header("host"), !host.isEmpty else { return extranetEndpoint }
        if let bucket = context.bucket, host.lowercased().hasPrefix(bucket + ".") {
            return String(host.dropFirst(bucket.count + 1))
        }
        return host
    }
}
