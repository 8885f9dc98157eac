import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Downloads in a bucket with versioning keep to the version they began with: a resume after the key got a new
/// version finishes the old one (and says so), a stream that reconnects stays on its version, and a download can
/// name a version. Against the local server's versioning.
@Suite("Downloads pinned to a version")
struct PinnedVersionDownloadTests {
    static let mib = 1_048_576

    /// Turns versioning on for `bucket` with a hand-written PutBucketVersioning (not the SDK's call: this suite
    /// checks the transfers, not the configuration API).
    static func enableVersioning(_ client: OSSClient, bucket: String = "bkt") async throws {
        let operation = OSSOperation(
            name: "PutBucketVersioning", method: "PUT", bucket: bucket, query: ["versioning": ""],
            headers: ["Content-Type": "application/xml"],
            body: .bytes(Data("<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>".utf8)))
        _ = try await client.invoke(operation) { $0.status }
    }

    /// Writes `bytes` to `key` and returns the version OSS gave them.
    static func putVersion(_ client: OSSClient, _ key: String, _ bytes: [UInt8]) async throws -> String {
        let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(bytes)))
        return try #require(put.versionId, "PutObject in a versioned bucket names its version")
    }

    /// A resumable download of `key` to the scratch destination, 1 MiB parts one at a time, with a record.
    static func request(_ key: String, _ scratch: RDScratch) -> OSSResumableDownloadRequest {
        OSSResumableDownloadRequest(
            bucketName: "bkt", objectKey: key, downloadToFileURL: scratch.destination, partSize: Int64(mib),
            threadNum: 1, recordDirectoryPath: scratch.recordDirectory)
    }

    /// Starts ``request(_:_:)`` and pauses it once `bytes` are on disk; returns the error it ended with.
    static func pausedDownload(_ client: OSSClient, _ key: String, _ scratch: RDScratch, after bytes: Int) async
        -> OSSClientError?
    {
        var pausing = request(key, scratch)
        let handle = pausing
        pausing.downloadProgress = { _, total, _ in if total >= Int64(bytes) { handle.pause() } }
        return await thrownClientError { _ = try await client.resumableDownload(pausing) }
    }

    @Test("a download paused while the key gets a new version resumes with the version it began, and says so")
    func pausedDownloadFinishesItsVersion() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let first = patternBytes(5 * Self.mib + 777, seed: 301)
        let second = patternBytes(3 * Self.mib + 11, seed: 302)
        try await withServerAndClient { _, client in
            try await Self.enableVersioning(client)
            let firstVersion = try await Self.putVersion(client, "video.bin", first)
            let paused = await Self.pausedDownload(client, "video.bin", scratch, after: 2 * Self.mib)
            #expect(paused?.code == .taskPaused, "\(String(describing: paused))")

            // The manager lists the version the paused download is pinned to.
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.recordDirectory)
            let listed = try await manager.transfers().filter { $0.kind == .download }
            #expect(listed.map(\.versionId) == [firstVersion])

            let secondVersion = try await Self.putVersion(client, "video.bin", second)
            #expect(secondVersion != firstVersion)
            let result = try await client.resumableDownload(Self.request("video.bin", scratch))
            #expect(Array(try Data(contentsOf: scratch.destination)) == first)
            #expect(result.crc64 == CRC64.checksum(first))
            #expect(result.versionId == firstVersion)
            #expect(result.newerVersionId == secondVersion)
            #expect(result.resumedBytes >= 2 * Int64(Self.mib), "the bytes on disk were kept")

            // A fresh download is of the current version, and nothing newer is reported.
            try FileManager.default.removeItem(at: scratch.destination)
            let fresh = try await client.resumableDownload(Self.request("video.bin", scratch))
            #expect(Array(try Data(contentsOf: scratch.destination)) == second)
            #expect(fresh.versionId == secondVersion)
            #expect(fresh.newerVersionId == nil)
        }
    }

    @Test("a paused download whose key was deleted (a delete marker) still finishes its version")
    func deleteMarkerDoesNotLoseThePinnedVersion() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(4 * Self.mib + 5, seed: 303)
        try await withServerAndClient { _, client in
            try await Self.enableVersioning(client)
            let version = try await Self.putVersion(client, "gone.bin", bytes)
            let paused = await Self.pausedDownload(client, "gone.bin", scratch, after: Self.mib)
            #expect(paused?.code == .taskPaused)
            // Without a versionId, DeleteObject in a versioned bucket only adds a delete marker.
            _ = try await client.deleteObject(OSSDeleteObjectRequest(bucketName: "bkt", objectKey: "gone.bin"))
            let result = try await client.resumableDownload(Self.request("gone.bin", scratch))
            #expect(Array(try Data(contentsOf: scratch.destination)) == bytes)
            #expect(result.versionId == version)
        }
    }

    @Test("a download can name a version; a record of another version is not resumed")
    func namedVersion() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let old = patternBytes(2 * Self.mib + 3, seed: 304)
        let new = patternBytes(2 * Self.mib + 9, seed: 305)
        try await withServerAndClient { _, client in
            try await Self.enableVersioning(client)
            let oldVersion = try await Self.putVersion(client, "doc.bin", old)
            let newVersion = try await Self.putVersion(client, "doc.bin", new)
            // Paused on the current (new) version, then asked for the old one: the record is not this download's.
            let paused = await Self.pausedDownload(client, "doc.bin", scratch, after: Self.mib)
            #expect(paused?.code == .taskPaused)
            var named = Self.request("doc.bin", scratch)
            named.versionId = oldVersion
            let result = try await client.resumableDownload(named)
            #expect(Array(try Data(contentsOf: scratch.destination)) == old)
            #expect(result.versionId == oldVersion)
            #expect(result.resumedBytes == 0, "the record of \(newVersion) was not resumed")

            // A list batch item names a version too.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pinned-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            let manager = OSSTransferManager(
                client: client, recordDirectoryPath: directory.appendingPathComponent("records").path)
            let batch = try await manager.downloadBatch(
                [OSSBatchDownloadItem(key: "doc.bin", path: "old.bin", versionId: oldVersion)], fromBucket: "bkt",
                to: directory.appendingPathComponent("files"))
            let report = try await batch.result()
            #expect(report.state == .completed)
            #expect(Array(try Data(contentsOf: directory.appendingPathComponent("files/old.bin"))) == old)
        }
    }

    @Test("a stream that reconnects after a dropped connection stays on the version it began with")
    func streamStaysOnItsVersion() async throws {
        let first = patternBytes(3 * Self.mib, seed: 306)
        let second = patternBytes(3 * Self.mib, seed: 307)
        // The first GET is cut after 1 MiB; the reconnecting GET waits 1.5 s on the server, long enough for the
        // test to write a new version first.
        let faults = [
            LocalOSSFaultRule(operation: .getObject, trigger: .nth(1), action: .dropConnection(afterBytes: Self.mib)),
            LocalOSSFaultRule(operation: .getObject, trigger: .nth(2), action: .delay(milliseconds: 1500)),
        ]
        try await withServerAndClient(faults: faults) { _, client in
            try await Self.enableVersioning(client)
            let version = try await Self.putVersion(client, "live.bin", first)
            let stream = try await client.downloadStream(bucket: "bkt", key: "live.bin")
            var iterator = stream.makeAsyncIterator()
            var received = Array(try #require(try await iterator.next()))
            _ = try await Self.putVersion(client, "live.bin", second)
            while let chunk = try await iterator.next() { received += chunk }
            #expect(received == first)
            #expect(stream.object.versionId == version)
        }
    }
}
