import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// A fresh directory for one batch test: a source tree, a destination, a record directory; removed by `cleanup()`.
struct BatchScratch {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("aliyun-oss-batch-tests", isDirectory: true)
            .appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    var source: URL { root.appendingPathComponent("source", isDirectory: true) }
    var destination: URL { root.appendingPathComponent("destination", isDirectory: true) }
    var records: String { root.appendingPathComponent("records").path }

    /// Writes `bytes` at `relativePath` under `base` (the source by default), making its directories.
    @discardableResult
    func write(_ relativePath: String, _ bytes: [UInt8], under base: URL? = nil) throws -> URL {
        let url = (base ?? source).appendingPathComponent(relativePath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
        return url
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: root)
    }
}

/// Every `.item` event of a batch, collected while it runs.
func batchItems(_ batch: OSSBatch) -> Task<[OSSBatchItem], Never> {
    let events = batch.events
    return Task {
        var items: [OSSBatchItem] = []
        for await event in events {
            if case .item(let item) = event { items.append(item) }
        }
        return items
    }
}

/// Runs `request` to its end with a new manager over `records`; returns the report and every item.
func runBatch(
    _ client: OSSClient, records: String, _ request: OSSDirectoryTransferRequest
) async throws -> (report: OSSBatchReport, items: [OSSBatchItem]) {
    let manager = OSSTransferManager(client: client, recordDirectoryPath: records)
    let batch = try await manager.startBatch(request)
    let items = batchItems(batch)
    let report = try await batch.result()
    return (report, await items.value)
}

/// The outcome of each item by key (the last when a key appears twice).
func outcomes(_ items: [OSSBatchItem]) -> [String: OSSBatchItemOutcome] {
    Dictionary(items.map { ($0.key, $0.outcome) }, uniquingKeysWith: { _, last in last })
}

/// Every key under `prefix` in bucket `bkt`.
func listKeys(_ client: OSSClient, prefix: String) async throws -> [String] {
    var keys: [String] = []
    for try await page in client.listObjectsV2Paginator(OSSListObjectsV2Request(bucketName: "bkt", prefix: prefix)) {
        keys += page.contents.map(\.objectKey)
    }
    return keys
}


/// Body bytes the server received and sent for object data since the last reset: PutObject and UploadPart
/// bodies in, GetObject bodies out.
func objectBodyBytes(_ server: LocalOSSServer) async -> (sent: Int64, fetched: Int64) {
    let stats = await server.stats()
    return (stats[.putObject].requestBodyBytes + stats[.uploadPart].requestBodyBytes, stats[.getObject].responseBodyBytes)
}

/// Sets the modification time of the file at `url`.
func setModificationDate(_ date: Date, of url: URL) throws {
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
}

let batchPartSize: Int64 = 102_400

/// Batch options for tests: files from 200,000 bytes go as resumable transfers of `batchPartSize` parts.
func batchOptions() -> OSSDirectoryTransferOptions {
    var options = OSSDirectoryTransferOptions()
    options.singleRequestThreshold = 200_000
    options.partSize = batchPartSize
    return options
}

