#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import OSSXML

extension OSSClient {
    /// InitiateMultipartUpload (`POST /key?uploads`).
    public func initiateMultipartUpload(_ request: OSSInitiateMultipartUploadRequest) async throws
        -> OSSInitiateMultipartUploadResult
    {
        var operation = OSSOperation(
            name: "InitiateMultipartUpload", method: "POST", bucket: request.bucketName, key: request.objectKey,
            query: ["uploads": "", "encoding-type": "url"], headers: request.headers)
        OSSObjectMetadata.apply(
            request.metadata, contentType: request.contentType, guessedFrom: [request.objectKey], to: &operation)
        if request.sequential { operation.query["sequential"] = "" }
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "InitiateMultipartUploadResult")
            let encoded = xml.string("EncodingType") == "url"
            let uploadId = try xml.decoded { try $0.requiredString("UploadId") }
            guard !uploadId.isEmpty else { throw OSSClientError(.nilUploadid, "the server returned an empty UploadId") }
            return OSSInitiateMultipartUploadResult(
                bucketName: xml.string("Bucket") ?? request.bucketName,
                objectKey: try xml.decodedText("Key", urlEncoded: encoded) ?? request.objectKey,
                uploadId: uploadId, requestId: response.requestId)
        }
    }

    /// UploadPart (`PUT /key?partNumber=n&uploadId=id`). The body is streamed from the file range (never
    /// loaded whole). With `sendContentMD5` the range is read once first to compute MD5 and CRC-64.
    /// The CRC-64 of the bytes sent is checked against the response when `crcCheckEnabled`.
    public func uploadPart(_ request: OSSUploadPartRequest) async throws -> OSSUploadPartResult {
        let crcEnabled = crcCheckEnabled(request.crcFlag)
        let sent = try await uploadPart(request, computeCRC: crcEnabled)
        if let local = sent.localCRC64 {
            try verifyCRC64(
                local: local, server: sent.result.crc64, enabled: crcEnabled,
                what: "part \(request.partNumber) of \(request.objectKey)")
        }
        var result = sent.result
        if result.crc64 == nil { result.crc64 = sent.localCRC64 }
        return result
    }

    /// UploadPart without the CRC verdict: returns the result (with the server's CRC-64 only) and, with
    /// `computeCRC`, the CRC-64 of the bytes sent in the successful attempt, computed as they stream out. The
    /// resumable upload uses it to read each part once and let its state machine judge a disagreement.
    func uploadPart(_ request: OSSUploadPartRequest, computeCRC: Bool) async throws -> (
        result: OSSUploadPartResult, localCRC64: UInt64?
    ) {
        try Self.requireUploadId(request.uploadId)
        guard (1...10_000).contains(request.partNumber) else {
            throw OSSClientError.invalidArgument("part numbers run from 1 to 10000, not \(request.partNumber)")
        }
        var operation = OSSOperation(
            name: "UploadPart", method: "PUT", bucket: request.bucketName, key: request.objectKey,
            query: ["partNumber": String(request.partNumber), "uploadId": request.uploadId], headers: request.headers)
        operation.detectsStalls = true
        let observer = try await Self.attachUploadBody(
            request.source, sendContentMD5: request.sendContentMD5, progress: request.uploadProgress,
            computeCRC: computeCRC, to: &operation)
        let size = operation.body.length
        return try await execute(operation, observer: observer) { response in
            try await response.body.drain()
            guard let eTag = response.eTag else {
                throw OSSClientError(.exceptionCaught, "UploadPart response has no ETag")
            }
            let result = OSSUploadPartResult(
                partNumber: request.partNumber, eTag: eTag, crc64: response.crc64, size: size,
                requestId: response.requestId)
            return (result, computeCRC ? observer.crc64 : nil)
        }
    }

    /// ListParts: one page. A single `<Part>` is a list of one; `HashCrc64ecma` is decoded when present.
    public func listParts(_ request: OSSListPartsRequest) async throws -> OSSListPartsResult {
        try Self.requireUploadId(request.uploadId)
        var operation = OSSOperation(
            name: "ListParts", method: "GET", bucket: request.bucketName, key: request.objectKey,
            query: ["uploadId": request.uploadId, "encoding-type": "url"])
        try Self.checkPageSize(request.maxParts, name: "maxParts")
        operation.setQuery("max-parts", request.maxParts.map(String.init))
        operation.setQuery("part-number-marker", request.partNumberMarker.map(String.init))
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "ListPartsResult")
            return try Self.decodeListParts(xml, request: request, requestId: response.requestId)
        }
    }

    /// Every page of ListParts, following `NextPartNumberMarker` while `IsTruncated`.
    public func listPartsPaginator(_ request: OSSListPartsRequest) -> OSSListPartsPaginator {
        OSSListPartsPaginator(client: self, request: request)
    }

    /// CompleteMultipartUpload. Parts are sent sorted by number with quoted ETags. With a callback the
    /// response body is the callback server's answer, returned in `serverCallbackBody`.
    public func completeMultipartUpload(_ request: OSSCompleteMultipartUploadRequest) async throws
        -> OSSCompleteMultipartUploadResult
    {
        try Self.requireUploadId(request.uploadId)
        var operation = OSSOperation(
            name: "CompleteMultipartUpload", method: "POST", bucket: request.bucketName, key: request.objectKey,
            query: ["uploadId": request.uploadId, "encoding-type": "url"], headers: request.headers)
        let callback = try OSSCallbackHeaders.make(
            typed: request.typedCallback, parameters: request.callbackParam, variables: request.callbackVar)
        for (name, value) in callback { operation.setHeader(name, value) }
        if request.completeAll {
            operation.setHeader("x-oss-complete-all", "yes")
        } else {
            guard !request.parts.isEmpty else {
                throw OSSClientError.invalidArgument("CompleteMultipartUpload needs at least one part")
            }
            let body = Array(Self.completeBody(request.parts).utf8)
            operation.body = .bytes(Data(body))
            operation.setHeader("content-type", "application/xml")
            operation.setHeader("content-md5", OSSFileDigest.contentMD5(body))
        }
        let hasCallback = operation.headers["x-oss-callback"] != nil
        return try await execute(operation) { response in
            try await OSSCallback.checkCallbackFailed(response)
            var result = OSSCompleteMultipartUploadResult(
                eTag: response.eTag, crc64: response.crc64, location: nil, bucketName: nil, objectKey: nil,
                versionId: response.headers["x-oss-version-id"], requestId: response.requestId,
                serverCallbackBody: nil, headers: response.publicHeaders)
            if hasCallback {
                let bytes = try await response.body.collectBytes(upTo: OSSServerError.maximumRawBodySize)
                result.serverCallbackBody = Data(bytes)
                return result
            }
            let xml = try await response.xml(root: "CompleteMultipartUploadResult")
            let encoded = xml.string("EncodingType") == "url"
            result.location = xml.string("Location")
            result.bucketName = xml.string("Bucket")
            result.objectKey = try xml.decodedText("Key", urlEncoded: encoded)
            if let eTag = xml.string("ETag") { result.eTag = eTag }
            return result
        }
    }

    /// AbortMultipartUpload (`DELETE /key?uploadId=id`).
    @discardableResult
    public func abortMultipartUpload(_ request: OSSAbortMultipartUploadRequest) async throws
        -> OSSAbortMultipartUploadResult
    {
        try Self.requireUploadId(request.uploadId)
        let operation = OSSOperation(
            name: "AbortMultipartUpload", method: "DELETE", bucket: request.bucketName, key: request.objectKey,
            query: ["uploadId": request.uploadId])
        return try await execute(operation) { response in
            try await response.body.drain()
            return OSSAbortMultipartUploadResult(requestId: response.requestId)
        }
    }

    /// ListMultipartUploads: one page.
    public func listMultipartUploads(_ request: OSSListMultipartUploadsRequest) async throws
        -> OSSListMultipartUploadsResult
    {
        var operation = OSSOperation(
            name: "ListMultipartUploads", method: "GET", bucket: request.bucketName,
            query: ["uploads": "", "encoding-type": "url"])
        operation.setQuery("prefix", request.prefix)
        operation.setQuery("delimiter", request.delimiter)
        operation.setQuery("key-marker", request.keyMarker)
        operation.setQuery("upload-id-marker", request.uploadIdMarker)
        try Self.checkPageSize(request.maxUploads, name: "maxUploads")
        operation.setQuery("max-uploads", request.maxUploads.map(String.init))
        return try await execute(operation) { response in
            let xml = try await response.xml(root: "ListMultipartUploadsResult")
            return try Self.decodeListMultipartUploads(xml, request: request, requestId: response.requestId)
        }
    }

    /// Every page of ListMultipartUploads.
    public func listMultipartUploadsPaginator(_ request: OSSListMultipartUploadsRequest)
        -> OSSListMultipartUploadsPaginator
    {
        OSSListMultipartUploadsPaginator(client: self, request: request)
    }

    // MARK: - Encoding and decoding

    /// Page sizes run from 1 to 1000.
    static func checkPageSize(_ value: Int?, name: String) throws {
        if let value, !(1...1000).contains(value) {
            throw OSSClientError.invalidArgument("\(name) must be between 1 and 1000, not \(value)")
        }
    }

    static func requireUploadId(_ uploadId: String) throws {
        guard !uploadId.isEmpty else { throw OSSClientError(.nilUploadid, "the upload id is empty") }
    }

    /// `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"…"</ETag></Part>…`, sorted, quoted.
    static func completeBody(_ parts: [OSSPartInfo]) -> String {
        let sorted = parts.sorted { $0.partNumber < $1.partNumber }
        let document = CompleteDocument(part: sorted.map { .init(partNumber: $0.partNumber, eTag: quoted($0.eTag)) })
        // Numbers and escaped strings under fixed names: nothing here can fail to encode.
        return (try? OSSXMLEncoder().encode(document, root: CompleteDocument.root)) ?? ""
    }

    static func quoted(_ eTag: String) -> String {
        eTag.hasPrefix("\"") && eTag.hasSuffix("\"") && eTag.count >= 2 ? eTag : "\"\(eTag)\""
    }

    static func decodeListParts(_ xml: OSSXMLNode, request: OSSListPartsRequest, requestId: String) throws
        -> OSSListPartsResult
    {
        let page = try xml.decoded { try OSSXMLDecoder().decode(ListPartsDocument.self, from: $0) }
        let parts = try page.part.map { part in
            guard part.size <= UInt64(Int64.max) else {
                throw OSSClientError(.exceptionCaught, "part \(part.partNumber) has no valid <Size>")
            }
            return OSSPartInfo(
                partNumber: part.partNumber, eTag: part.eTag ?? "", size: Int64(part.size),
                lastModified: part.lastModified, crc64: part.hashCrc64ecma)
        }
        return OSSListPartsResult(
            bucketName: page.bucket ?? request.bucketName,
            objectKey: try page.key.map { try OSSXMLNode.decodeIfNeeded($0, urlEncoded: page.encodingType == "url", element: "Key") }
                ?? request.objectKey,
            uploadId: page.uploadId ?? request.uploadId, partNumberMarker: page.partNumberMarker.flatMap { Int($0) } ?? 0,
            nextPartNumberMarker: page.nextPartNumberMarker, maxParts: page.maxParts,
            isTruncated: page.isTruncated ?? false, parts: parts, requestId: requestId)
    }

    static func decodeListMultipartUploads(
        _ xml: OSSXMLNode, request: OSSListMultipartUploadsRequest, requestId: String
    ) throws -> OSSListMultipartUploadsResult {
        let encoded = xml.string("EncodingType") == "url"
        var uploads: [OSSMultipartUploadInfo] = []
        for node in xml.children("Upload") {
            guard let key = try node.decodedText("Key", urlEncoded: encoded), let uploadId = node.string("UploadId") else {
                throw OSSClientError(.exceptionCaught, "an <Upload> lacks <Key> or <UploadId>")
            }
            uploads.append(OSSMultipartUploadInfo(objectKey: key, uploadId: uploadId, initiated: node.date("Initiated")))
        }
        var prefixes: [String] = []
        for node in xml.children("CommonPrefixes") {
            if let prefix = try node.decodedText("Prefix", urlEncoded: encoded) { prefixes.append(prefix) }
        }
        return OSSListMultipartUploadsResult(
            bucketName: xml.string("Bucket") ?? request.bucketName,
            prefix: try xml.decodedText("Prefix", urlEncoded: encoded),
            delimiter: try xml.decodedText("Delimiter", urlEncoded: encoded),
            keyMarker: try xml.decodedText("KeyMarker", urlEncoded: encoded),
            uploadIdMarker: xml.string("UploadIdMarker"),
            nextKeyMarker: try xml.decodedText("NextKeyMarker", urlEncoded: encoded),
            nextUploadIdMarker: xml.string("NextUploadIdMarker"),
            maxUploads: try xml.decoded { try $0.int("MaxUploads") },
            isTruncated: try xml.decoded { try $0.bool("IsTruncated") } ?? false,
            uploads: uploads, commonPrefixes: prefixes, requestId: requestId)
    }
}

/// `<CompleteMultipartUpload>`: flat repeated `<Part>` elements.
private struct CompleteDocument: Encodable {
    static let root = "CompleteMultipartUpload"
    var part: [Part]

    struct Part: Encodable {
        var partNumber: Int
        var eTag: String
    }
}

/// `<ListPartsResult>`: one page of parts.
private struct ListPartsDocument: Decodable {
    var bucket: String?
    var key: String?
    var uploadId: String?
    var encodingType: String?
    /// Read leniently: some servers send it empty.
    var partNumberMarker: String?
    var nextPartNumberMarker: Int?
    var maxParts: Int?
    var isTruncated: Bool?
    var part: [Part]

    struct Part: Decodable {
        var partNumber: Int
        var eTag: String?
        var size: UInt64
        var lastModified: Date?
        var hashCrc64ecma: UInt64?
    }
}
