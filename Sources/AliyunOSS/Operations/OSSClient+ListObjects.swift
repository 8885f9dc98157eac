import OSSXML

extension OSSClient {
    /// ListObjectsV2: one page. Sends `encoding-type=url` and decodes keys, prefixes and markers.
    public func listObjectsV2(_ request: OSSListObjectsV2Request) async throws -> OSSListObjectsV2Result {
        var operation = OSSOperation(
            name: "ListObjectsV2", method: "GET", bucket: request.bucketName,
            query: ["list-type": "2", "encoding-type": "url"])
        operation.setQuery("prefix", request.prefix)
        operation.setQuery("delimiter", request.delimiter)
        operation.setQuery("start-after", request.startAfter)
        operation.setQuery("continuation-token", request.continuationToken)
        try Self.checkPageSize(request.maxKeys, name: "maxKeys")
        operation.setQuery("max-keys", request.maxKeys.map(String.init))
        if request.fetchOwner { operation.setQuery("fetch-owner", "true") }
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "ListBucketResult")
            return try Self.decodeListObjectsV2(xml, request: request, requestId: response.requestId)
        }
    }

    /// Every page of ListObjectsV2, following `NextContinuationToken`.
    public func listObjectsV2Paginator(_ request: OSSListObjectsV2Request) -> OSSListObjectsV2Paginator {
        OSSListObjectsV2Paginator(client: self, request: request)
    }

    static func decodeListObjectsV2(_ xml: OSSXMLNode, request: OSSListObjectsV2Request, requestId: String) throws
        -> OSSListObjectsV2Result
    {
        let encoded = xml.string("EncodingType") == "url"
        var contents: [OSSObjectSummary] = []
        for node in xml.children("Contents") {
            guard let key = try node.decodedText("Key", urlEncoded: encoded) else {
                throw OSSClientError(.exceptionCaught, "a <Contents> entry has no <Key>")
            }
            let size = try node.decoded { try $0.uint64("Size") } ?? 0
            guard size <= UInt64(Int64.max) else { throw OSSClientError(.exceptionCaught, "object size out of range") }
            contents.append(
                OSSObjectSummary(
                    objectKey: key, lastModified: node.date("LastModified"), eTag: node.string("ETag"),
                    size: Int64(size), storageClass: node.string("StorageClass"), objectType: node.string("Type")))
        }
        var prefixes: [String] = []
        for node in xml.children("CommonPrefixes") {
            if let prefix = try node.decodedText("Prefix", urlEncoded: encoded) { prefixes.append(prefix) }
        }
        return OSSListObjectsV2Result(
            bucketName: xml.string("Name") ?? request.bucketName,
            prefix: try xml.decodedText("Prefix", urlEncoded: encoded),
            delimiter: try xml.decodedText("Delimiter", urlEncoded: encoded),
            startAfter: try xml.decodedText("StartAfter", urlEncoded: encoded),
            maxKeys: try xml.decoded { try $0.int("MaxKeys") },
            keyCount: try xml.decoded { try $0.int("KeyCount") },
            isTruncated: try xml.decoded { try $0.bool("IsTruncated") } ?? false,
            continuationToken: xml.string("ContinuationToken"),
            nextContinuationToken: xml.string("NextContinuationToken"),
            contents: contents, commonPrefixes: prefixes, requestId: requestId)
    }
}
