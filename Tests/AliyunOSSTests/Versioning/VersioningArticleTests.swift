import AliyunOSS
import Foundation
import OSSTestSupport
import Testing

// MARK: The code of Versioning.md (DocC), verbatim: the article's blocks are checked against this file and run
// against the local server below.

func enableVersioning(client: OSSClient) async throws {
    try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "my-bucket", status: .enabled))
    let versioning = try await client.getBucketVersioning(OSSGetBucketVersioningRequest(bucketName: "my-bucket"))
    print(versioning.status?.rawValue ?? "never enabled")
}

func versionHistory(of key: String, in client: OSSClient) async throws -> [OSSObjectVersionEntry] {
    var entries: [OSSObjectVersionEntry] = []
    let request = OSSListObjectVersionsRequest(bucketName: "my-bucket", prefix: key)
    for try await page in client.listObjectVersionsPaginator(request) {
        entries += page.entries.filter { $0.objectKey == key }
    }
    for entry in entries {
        let kind = entry.isDeleteMarker ? "delete marker" : "version"
        print(entry.versionId, kind, entry.isLatest ? "(latest)" : "", entry.lastModified ?? Date.distantPast)
    }
    return entries
}

func restoreVersion(_ key: String, to versionId: String, in client: OSSClient) async throws -> String? {
    let copy = try await client.copyObject(
        OSSCopyObjectRequest(
            sourceBucketName: "my-bucket", sourceObjectKey: key, sourceVersionId: versionId,
            bucketName: "my-bucket", objectKey: key))
    return copy.versionId   // the new latest version, with the old version's bytes
}

func purgeVersions(_ key: String, keeping latest: String, in client: OSSClient) async throws {
    let old = try await versionHistory(of: key, in: client).filter { $0.versionId != latest }
    let doomed = old.map { OSSObjectIdentifier(objectKey: key, versionId: $0.versionId) }
    for deleted in try await client.deleteObjects(doomed, inBucket: "my-bucket") {
        print("removed", deleted.objectKey, deleted.versionId ?? "", deleted.deleteMarker ? "(a delete marker)" : "")
    }
}

func downloadVersion(_ key: String, _ versionId: String?, to file: URL, records: String, in client: OSSClient)
    async throws -> OSSResumableDownloadResult
{
    var request = OSSResumableDownloadRequest(
        bucketName: "my-bucket", objectKey: key, downloadToFileURL: file, recordDirectoryPath: records)
    request.versionId = versionId   // nil: the current version, kept to until the end
    let result = try await client.resumableDownload(request)
    if let newer = result.newerVersionId {
        print("finished version", result.versionId ?? "", "which it began; the latest is now", newer)
    }
    return result
}

/// The Versioning article: its code is this file's, and it runs (enable, history, restore, purge).
@Suite("Versioning article")
struct VersioningArticleTests {
    static let source = URL(fileURLWithPath: #filePath)

    @Test func everyBlockOfTheArticleIsThisFilesCodeVerbatim() throws {
        try DocSnippetsTests.expectBlocksVerbatim(of: "Versioning.md", count: 5, in: Self.source)
    }

    @Test func theArticlesCodeRestoresAndPurges() async throws {
        try await withServerAndClient(extraBuckets: ["my-bucket"]) { _, client in
            try await enableVersioning(client: client)
            var ids: [String] = []
            for text in ["first", "second", "third"] {
                let put = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "report.txt", data: Data(text.utf8)))
                ids.append(try #require(put.versionId))
            }
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "my-bucket", objectKey: "report.txt.bak", data: Data("other".utf8)))
            let history = try await versionHistory(of: "report.txt", in: client)
            #expect(history.map(\.versionId) == ids.reversed())

            let restored = try #require(try await restoreVersion("report.txt", to: ids[0], in: client))
            let now = try await client.getObject(OSSGetObjectRequest(bucketName: "my-bucket", objectKey: "report.txt"))
            #expect(now.content == Data("first".utf8) && now.versionId == restored)

            try await purgeVersions("report.txt", keeping: restored, in: client)
            #expect(try await versionHistory(of: "report.txt", in: client).map(\.versionId) == [restored])
            #expect(try await versionHistory(of: "report.txt.bak", in: client).count == 1, "another key is left alone")

            let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("article-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let file = scratch.appendingPathComponent("report.txt")
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
            let second = try await downloadVersion(
                "report.txt.bak", nil, to: file, records: scratch.appendingPathComponent("records").path, in: client)
            #expect(try Data(contentsOf: file) == Data("other".utf8) && second.newerVersionId == nil)
        }
    }
}
