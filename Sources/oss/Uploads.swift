import AliyunOSS

/// The multipart uploads in progress (started, neither completed nor aborted: their parts are billed) that
/// `oss ls -m` lists and `oss rm -m` aborts.
enum Uploads {
    /// Which uploads: those of exactly one key, or those of every key under a folder (`""`: the whole bucket).
    enum Scope {
        case key(String)
        case folder(String)
    }

    /// Calls `body` with each page of `scope`'s uploads, in listing order (by key, then upload id), following
    /// ListMultipartUploads' key and upload-id markers. The uploads of one key are listed with the key as prefix:
    /// the key sorts before every longer key that begins with it, so the listing stops at the first other key.
    static func forEachPage(
        _ scope: Scope, bucket: String, client: OSSClient, _ body: ([OSSMultipartUploadInfo]) async throws -> Void
    ) async throws {
        switch scope {
        case .key(let key):
            let request = OSSListMultipartUploadsRequest(bucketName: bucket, prefix: key)
            for try await page in client.listMultipartUploadsPaginator(request) {
                let ofKey = page.uploads.prefix { $0.objectKey == key }
                if !ofKey.isEmpty { try await body(Array(ofKey)) }
                if ofKey.count < page.uploads.count { return }
            }
        case .folder(let folder):
            let request = OSSListMultipartUploadsRequest(bucketName: bucket, prefix: folder.isEmpty ? nil : folder)
            for try await page in client.listMultipartUploadsPaginator(request) where !page.uploads.isEmpty {
                try await body(page.uploads)
            }
        }
    }

    /// Every upload of `scope`.
    static func all(_ scope: Scope, bucket: String, client: OSSClient) async throws -> [OSSMultipartUploadInfo] {
        var uploads: [OSSMultipartUploadInfo] = []
        try await forEachPage(scope, bucket: bucket, client: client) { uploads += $0 }
        return uploads
    }

    /// The parts an upload holds so far and their bytes (every page of ListParts); `nil` when the upload is no
    /// longer in progress (completed or aborted since it was listed: NoSuchUpload).
    static func progress(of upload: OSSMultipartUploadInfo, bucket: String, client: OSSClient) async throws
        -> (parts: Int, bytes: Int64)?
    {
        var parts = 0
        var bytes: Int64 = 0
        do {
            let request = OSSListPartsRequest(bucketName: bucket, objectKey: upload.objectKey, uploadId: upload.uploadId)
            for try await page in client.listPartsPaginator(request) {
                parts += page.parts.count
                bytes += page.parts.reduce(0) { $0 + $1.size }
            }
        } catch let error as OSSServerError where error.code == "NoSuchUpload" {
            return nil
        }
        return (parts, bytes)
    }

    /// `oss://bucket/key`, as `oss ls` prints a key.
    static func url(_ upload: OSSMultipartUploadInfo, bucket: String) -> String {
        "oss://\(bucket)/\(upload.objectKey)"
    }
}

/// `transform` of each of `items`, at most `width` at a time, returned in the items' order.
func mapConcurrently<Item: Sendable, Value: Sendable>(
    _ items: [Item], width: Int = 8, _ transform: @escaping @Sendable (Item) async throws -> Value
) async throws -> [Value] {
    var values = [Value?](repeating: nil, count: items.count)
    try await withThrowingTaskGroup(of: (Int, Value).self) { group in
        var next = 0
        func start() {
            guard next < items.count else { return }
            let index = next
            next += 1
            group.addTask { (index, try await transform(items[index])) }
        }
        for _ in 0..<width { start() }
        while let (index, value) = try await group.next() {
            values[index] = value
            start()
        }
    }
    return values.compactMap { $0 }
}
