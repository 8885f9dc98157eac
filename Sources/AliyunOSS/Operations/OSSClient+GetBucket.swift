import OSSXML

extension OSSClient {
    /// GetBucket (ListObjects V1): one page. Sends `encoding-type=url` and decodes keys, prefixes and markers.
    public func getBucket(_ request: OSSGetBucketRequest) async throws -> OSSGetBucketResult {
        var operation = OSSOperation(
            name: "ListObjects", method: "GET", bucket: request.bucketName, query: ["encoding-type": "url"])
        operation.setQuery("prefix", request.prefix)
        operation.setQuery("marker", request.marker)
        operation.setQuery("delimiter", request.delimiter)
        try Self.checkPageSize(request.maxKeys, name: "maxKeys")
        operation.setQuery("max-keys", request.maxKeys.map(String.init))
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "ListBucketResult")
            return try Self.decodeGetBucket(xml, request: request, requestId: response.requestId)
        }
    }

    /// Every page of GetBucket, following `NextMarker` (or the last key) while `IsTruncated`.
    public func getBucketPaginator(_ request: OSSGetBucketRequest) -> OSSGetBucketPaginator {
        OSSGetBucketPaginator(client: self, request: request)
    }

    /// Every page of ListBuckets, following `NextMarker` while `IsTruncated`.
    public func listBucketsPaginator(_ request: OSSListBucketsRequest = OSSListBucketsRequest()) -> OSSListBucketsPaginator {
        OSSListBucketsPaginator(client: self, request: request)
    }

    static func decodeGetBucket(_ xml: OSSXMLNode, request: OSSGetBucketRequest, requestId: String) throws
        -> OSSGetBucketResult
    {
        let encoded = xml.string("EncodingType") == "url"
        let v2 = try decodeListObjectsV2(
            xml, request: OSSListObjectsV2Request(bucketName: request.bucketName), requestId: requestId)
        return OSSGetBucketResult(
            bucketName: v2.bucketName, prefix: v2.prefix, marker: try xml.decodedText("Marker", urlEncoded: encoded),
            delimiter: v2.delimiter, maxKeys: v2.maxKeys, isTruncated: v2.isTruncated,
            nextMarker: try xml.decodedText("NextMarker", urlEncoded: encoded), contents: v2.contents,
            commonPrefixes: v2.commonPrefixes, requestId: requestId)
    }
}

/// Pages of GetBucket (ListObjects V1).
public typealias OSSGetBucketPaginator = OSSPaginator<OSSGetBucketRequest, OSSGetBucketResult>
/// Pages of ListBuckets.
public typealias OSSListBucketsPaginator = OSSPaginator<OSSListBucketsRequest, OSSListBucketsResult>

extension OSSPaginator where Request == OSSGetBucketRequest, Page == OSSGetBucketResult {
    init(client: OSSClient, request: OSSGetBucketRequest) {
        self.init(first: request, fetch: { try await client.getBucket($0) }) { previous, page in
            guard page.isTruncated else { return nil }
            let marker = page.nextMarker ?? [page.contents.last?.objectKey, page.commonPrefixes.last]
                .compactMap { $0 }.max { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            guard let marker, !marker.isEmpty, marker != previous.marker else {
                throw OSSClientError(.exceptionCaught, "ListObjects is truncated but its marker does not advance")
            }
            var next = previous
            next.marker = marker
            return next
        }
    }
}

extension OSSPaginator where Request == OSSListBucketsRequest, Page == OSSListBucketsResult {
    init(client: OSSClient, request: OSSListBucketsRequest) {
        self.init(first: request, fetch: { try await client.listBuckets($0) }) { previous, page in
            guard page.isTruncated else { return nil }
            let marker = page.nextMarker ?? page.buckets.last?.name
            guard let marker, !marker.isEmpty, marker != previous.marker else {
                throw OSSClientError(.exceptionCaught, "ListBuckets is truncated but its marker does not advance")
            }
            var next = previous
            next.marker = marker
            return next
        }
    }
}
