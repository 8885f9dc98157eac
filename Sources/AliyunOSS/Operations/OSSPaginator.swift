/// Pages of a listing API as an `AsyncSequence`: each element is one page; the sequence ends after the
/// last (non-truncated) page. A server that says "truncated" without moving its marker forward is an error
/// (`.exceptionCaught`) rather than an endless loop.
public struct OSSPaginator<Request: Sendable, Page: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Page

    let first: Request
    let fetch: @Sendable (Request) async throws -> Page
    /// The request for the page after `page`, `nil` when `page` was the last; throws when the marker is stuck.
    let nextRequest: @Sendable (Request, Page) throws -> Request?

    public struct AsyncIterator: AsyncIteratorProtocol {
        var pending: Request?
        let fetch: @Sendable (Request) async throws -> Page
        let nextRequest: @Sendable (Request, Page) throws -> Request?

        public mutating func next() async throws -> Page? {
            guard let request = pending else { return nil }
            pending = nil
            let page = try await fetch(request)
            pending = try nextRequest(request, page)
            return page
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pending: first, fetch: fetch, nextRequest: nextRequest)
    }
}

/// Pages of ListParts.
public typealias OSSListPartsPaginator = OSSPaginator<OSSListPartsRequest, OSSListPartsResult>
/// Pages of ListMultipartUploads.
public typealias OSSListMultipartUploadsPaginator = OSSPaginator<
    OSSListMultipartUploadsRequest, OSSListMultipartUploadsResult
>
/// Pages of ListObjectsV2.
public typealias OSSListObjectsV2Paginator = OSSPaginator<OSSListObjectsV2Request, OSSListObjectsV2Result>

extension OSSPaginator where Request == OSSListPartsRequest, Page == OSSListPartsResult {
    init(client: OSSClient, request: OSSListPartsRequest) {
        self.init(first: request, fetch: { try await client.listParts($0) }) { previous, page in
            guard page.isTruncated else { return nil }
            let marker = page.nextPartNumberMarker ?? page.parts.last?.partNumber
            guard let marker, marker > (previous.partNumberMarker ?? 0) else {
                throw OSSClientError(.exceptionCaught, "ListParts is truncated but its marker does not advance")
            }
            var next = previous
            next.partNumberMarker = marker
            return next
        }
    }
}

extension OSSPaginator where Request == OSSListMultipartUploadsRequest, Page == OSSListMultipartUploadsResult {
    init(client: OSSClient, request: OSSListMultipartUploadsRequest) {
        self.init(first: request, fetch: { try await client.listMultipartUploads($0) }) { previous, page in
            guard page.isTruncated else { return nil }
            guard let key = page.nextKeyMarker,
                key != previous.keyMarker || page.nextUploadIdMarker != previous.uploadIdMarker
            else {
                throw OSSClientError(.exceptionCaught, "ListMultipartUploads is truncated but its marker does not advance")
            }
            var next = previous
            next.keyMarker = key
            next.uploadIdMarker = page.nextUploadIdMarker
            return next
        }
    }
}

extension OSSPaginator where Request == OSSListObjectsV2Request, Page == OSSListObjectsV2Result {
    init(client: OSSClient, request: OSSListObjectsV2Request) {
        self.init(first: request, fetch: { try await client.listObjectsV2($0) }) { previous, page in
            guard page.isTruncated else { return nil }
            guard let token = page.nextContinuationToken, !token.isEmpty, token != previous.continuationToken else {
                throw OSSClientError(.exceptionCaught, "ListObjectsV2 is truncated but gives no new continuation token")
            }
            var next = previous
            next.continuationToken = token
            return next
        }
    }
}

extension OSSClient {
    /// Every part of an upload, walking all pages of ListParts.
    public func listAllParts(bucketName: String, objectKey: String, uploadId: String) async throws -> [OSSPartInfo] {
        var parts: [OSSPartInfo] = []
        for try await page in listPartsPaginator(
            OSSListPartsRequest(bucketName: bucketName, objectKey: objectKey, uploadId: uploadId))
        {
            parts.append(contentsOf: page.parts)
        }
        return parts
    }
}
