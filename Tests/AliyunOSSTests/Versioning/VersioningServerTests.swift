import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The SDK's versioning calls against the local server: a versioned bucket's history written, listed, read
/// version by version, restored by a copy and purged.
@Suite("Versioning against the local server")
struct VersioningServerTests {
    static func put(_ client: OSSClient, _ key: String, _ text: String, bucket: String = "bkt") async throws -> String {
        let result = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: key, data: Data(text.utf8)))
        return try #require(result.versionId, "a write to a versioned bucket returns x-oss-version-id")
    }

    static func read(_ client: OSSClient, _ key: String, versionId: String? = nil) async throws -> String {
        let result = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key, versionId: versionId))
        return String(decoding: result.content ?? Data(), as: UTF8.self)
    }

    @Test func theStatusIsOffThenEnabledThenSuspended() async throws {
        try await withServerAndClient { _, client in
            let request = OSSGetBucketVersioningRequest(bucketName: "bkt")
            #expect(try await client.getBucketVersioning(request).status == nil)
            #expect(try await client.getBucketInfo(OSSGetBucketInfoRequest(bucketName: "bkt")).versioning == nil)
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            #expect(try await client.getBucketVersioning(request).status == .enabled)
            #expect(try await client.getBucketInfo(OSSGetBucketInfoRequest(bucketName: "bkt")).versioning == .enabled)
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .suspended))
            #expect(try await client.getBucketVersioning(request).status == .suspended)
        }
    }

    @Test func aKeysHistoryIsListedReadRestoredAndPurged() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            let v1 = try await Self.put(client, "doc.txt", "one")
            let v2 = try await Self.put(client, "doc.txt", "two!")
            let v3 = try await Self.put(client, "doc.txt", "three")
            #expect(Set([v1, v2, v3]).count == 3, "every write is a version of its own")

            let delete = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "doc.txt"))
            #expect(delete.deleteMarker, "a delete without a version id adds a delete marker")
            let marker = try #require(delete.versionId)
            let gone = await serverError { _ = try await Self.read(client, "doc.txt") }
            #expect(gone?.statusCode == 404)

            let page = try await client.listObjectVersions(OSSListObjectVersionsRequest(bucketName: "bkt"))
            #expect(page.entries.map(\.versionId) == [marker, v3, v2, v1], "newest first")
            #expect(page.entries.map(\.isDeleteMarker) == [true, false, false, false])
            #expect(page.entries.map(\.isLatest) == [true, false, false, false])
            #expect(page.versions.map(\.size) == [5, 4, 3])
            #expect(page.versions.allSatisfy { $0.objectKey == "doc.txt" && $0.eTag != nil && $0.lastModified != nil })

            // Each version byte for byte, and its metadata.
            #expect(try await Self.read(client, "doc.txt", versionId: v1) == "one")
            #expect(try await Self.read(client, "doc.txt", versionId: v2) == "two!")
            let head = try await client.headObject(
                OSSHeadObjectRequest(bucketName: "bkt", objectKey: "doc.txt", versionId: v2))
            #expect(head.contentLength == 4 && head.versionId == v2)
            let meta = try await client.getObjectMeta(
                OSSGetObjectMetaRequest(bucketName: "bkt", objectKey: "doc.txt", versionId: v1))
            #expect(meta.contentLength == 3 && meta.versionId == v1)

            // Restore v2 by copying it over the latest.
            let copy = try await client.copyObject(
                OSSCopyObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "doc.txt", sourceVersionId: v2, bucketName: "bkt",
                    objectKey: "doc.txt"))
            #expect(copy.sourceVersionId == v2)
            let restored = try #require(copy.versionId)
            #expect(![v1, v2, v3, marker].contains(restored))
            #expect(try await Self.read(client, "doc.txt") == "two!")

            // Purge everything but the restored version, naming each version.
            let purge = [v1, v2, v3, marker].map { OSSObjectIdentifier(objectKey: "doc.txt", versionId: $0) }
            let deleted = try await client.deleteObjects(purge, inBucket: "bkt")
            #expect(Set(deleted.compactMap(\.versionId)) == Set([v1, v2, v3, marker]))
            #expect(deleted.first { $0.versionId == marker }?.deleteMarker == true, "the marker is reported as one")
            let left = try await client.listObjectVersions(OSSListObjectVersionsRequest(bucketName: "bkt"))
            #expect(left.entries.map(\.versionId) == [restored])
            #expect(try await Self.read(client, "doc.txt") == "two!")
        }
    }

    @Test func deleteObjectsWithoutVersionsAddsMarkersAndSaysSo() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            let a = try await Self.put(client, "a", "a")
            _ = try await Self.put(client, "b", "b")
            let results = try await client.deleteObjects(
                [OSSObjectIdentifier(objectKey: "a"), OSSObjectIdentifier(objectKey: "b")], inBucket: "bkt")
            #expect(results.count == 2 && results.allSatisfy { $0.deleteMarker && $0.deleteMarkerVersionId != nil })
            #expect(try await Self.read(client, "a", versionId: a) == "a", "nothing was lost")
            let page = try await client.listObjectVersions(OSSListObjectVersionsRequest(bucketName: "bkt"))
            #expect(page.deleteMarkers.map(\.versionId) == results.compactMap(\.deleteMarkerVersionId))
        }
    }

    @Test func pagesNeverSkipOrRepeatAVersion() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            var written: [String] = []
            for key in ["p/a", "p/b", "p/c"] {
                for n in 0..<3 { written.append(try await Self.put(client, key, "\(key)\(n)")) }
            }
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "p/b"))
            _ = try await Self.put(client, "q/other", "x")
            var seen: [OSSObjectVersionEntry] = []
            var pages = 0
            for try await page in client.listObjectVersionsPaginator(
                OSSListObjectVersionsRequest(bucketName: "bkt", prefix: "p/", maxKeys: 2))
            {
                #expect(page.entries.count <= 2)
                seen += page.entries
                pages += 1
            }
            #expect(pages >= 5)
            #expect(seen.count == 10 && Set(seen.map(\.versionId)).count == 10)
            #expect(seen.map(\.objectKey) == ["p/a", "p/a", "p/a", "p/b", "p/b", "p/b", "p/b", "p/c", "p/c", "p/c"])
            #expect(Set(seen.filter { !$0.isDeleteMarker }.map(\.versionId)) == Set(written))

            let folders = try await client.listObjectVersions(OSSListObjectVersionsRequest(bucketName: "bkt", delimiter: "/"))
            #expect(folders.commonPrefixes == ["p/", "q/"] && folders.entries.isEmpty)
        }
    }

    @Test func tagsAndACLsBelongToAVersion() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            let old = try await Self.put(client, "t", "old")
            _ = try await Self.put(client, "t", "new")
            try await client.putObjectTagging(
                OSSPutObjectTaggingRequest(bucketName: "bkt", objectKey: "t", tags: ["v": "old"], versionId: old))
            let tagged = try await client.getObjectTagging(
                OSSGetObjectTaggingRequest(bucketName: "bkt", objectKey: "t", versionId: old))
            #expect(tagged.tags == ["v": "old"] && tagged.versionId == old)
            #expect(try await client.getObjectTagging(OSSGetObjectTaggingRequest(bucketName: "bkt", objectKey: "t")).tags.isEmpty)
            try await client.deleteObjectTagging(OSSDeleteObjectTaggingRequest(bucketName: "bkt", objectKey: "t", versionId: old))
            #expect(
                try await client.getObjectTagging(
                    OSSGetObjectTaggingRequest(bucketName: "bkt", objectKey: "t", versionId: old)
                ).tags.isEmpty)

            try await client.putObjectACL(
                OSSPutObjectACLRequest(bucketName: "bkt", objectKey: "t", acl: .publicRead, versionId: old))
            let acl = try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: "t", versionId: old))
            #expect(acl.grant == .publicRead && acl.versionId == old)
            #expect(try await client.getObjectACL(OSSGetObjectACLRequest(bucketName: "bkt", objectKey: "t")).grant == .default)
        }
    }

    @Test func symlinksAndLargeCopiesNameTheirVersions() async throws {
        try await withServerAndClient { _, client in
            try await client.putBucketVersioning(OSSPutBucketVersioningRequest(bucketName: "bkt", status: .enabled))
            let first = try await client.putSymlink(
                OSSPutSymlinkRequest(bucketName: "bkt", objectKey: "link", targetObjectName: "one"))
            _ = try await client.putSymlink(OSSPutSymlinkRequest(bucketName: "bkt", objectKey: "link", targetObjectName: "two"))
            let firstId = try #require(first.versionId)
            let link = try await client.getSymlink(OSSGetSymlinkRequest(bucketName: "bkt", objectKey: "link", versionId: firstId))
            #expect(link.targetObjectName == "one" && link.versionId == firstId)

            // A multipart copy (UploadPartCopy) of an old version of a 300 000-byte object.
            let old = patternBytes(300_000, seed: 3)
            let oldId = try #require(
                try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "big", data: Data(old))).versionId)
            _ = try await Self.put(client, "big", "newer and small")
            let copy = try await client.copyLargeObject(
                OSSCopyLargeObjectRequest(
                    sourceBucketName: "bkt", sourceObjectKey: "big", sourceVersionId: oldId, bucketName: "bkt",
                    objectKey: "big-restored", partSize: 102_400))
            #expect(copy.partCount == 3 && copy.sourceVersionId == oldId && copy.versionId != nil)
            let restored = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "big-restored"))
            #expect(restored.content == Data(old))
        }
    }
}
