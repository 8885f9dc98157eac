import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Orphaned uploads and stale records")
struct OrphanHygieneTests {
    @Test("uploads without a record are found by age and prefix, and aborted; recorded uploads are left alone")
    func findAndAbortOrphans() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let source = try scratch.write(patternBytes(6 * Int(tmPartSize), seed: 91), to: "source.bin")
        try await withTMServer { _, client in
            // A paused resumable upload: its record keeps it alive.
            try await tmUploadAndCancel(
                client, key: "orphans/kept.bin", source: source, recordDirectory: scratch.recordDirectory, cancelAfter: 2)
            let kept = try await tmUploadIds(client)
            #expect(kept.count == 1)
            // Two uploads nobody records, one with a part.
            var orphans: [String] = []
            for key in ["orphans/a.bin", "orphans/b.bin"] {
                let initiated = try await client.initiateMultipartUpload(
                    OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: key))
                orphans.append(initiated.uploadId)
            }
            _ = try await client.uploadPart(
                OSSUploadPartRequest(
                    bucketName: "bkt", objectKey: "orphans/a.bin", uploadId: orphans[0], partNumber: 1,
                    source: .data(Data(patternBytes(1000)))))

            let young = try await client.findOrphanedUploads(
                bucketName: "bkt", olderThan: .seconds(3600), recordDirectoryPath: scratch.recordDirectory)
            #expect(young.isEmpty)

            let found = try await client.findOrphanedUploads(
                bucketName: "bkt", olderThan: .zero, recordDirectoryPath: scratch.recordDirectory)
            #expect(Set(found.map(\.uploadId)) == Set(orphans))
            #expect(Set(found.map(\.objectKey)) == ["orphans/a.bin", "orphans/b.bin"])
            #expect(found.allSatisfy { $0.initiated != nil })

            let underA = try await client.findOrphanedUploads(
                bucketName: "bkt", prefix: "orphans/a", olderThan: .zero, recordDirectoryPath: scratch.recordDirectory)
            #expect(underA.map(\.uploadId) == [orphans[0]])

            // Without the records, the paused upload is an orphan too.
            let elsewhere = scratch.root.appendingPathComponent("empty-records").path
            let all = try await client.findOrphanedUploads(
                bucketName: "bkt", olderThan: .zero, recordDirectoryPath: elsewhere)
            #expect(all.count == 3)

            let report = try await client.abortOrphanedUploads(
                bucketName: "bkt", olderThan: .zero, recordDirectoryPath: scratch.recordDirectory)
            #expect(Set(report.aborted.map(\.uploadId)) == Set(orphans))
            #expect(report.failures.isEmpty)
            #expect(try await tmUploadIds(client) == kept)
        }
    }

    @Test("pagination: more orphans than one ListMultipartUploads page")
    func manyOrphans() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        try await withTMServer { _, client in
            for index in 0..<1003 {
                _ = try await client.initiateMultipartUpload(
                    OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "many/\(index)"))
            }
            let report = try await client.abortOrphanedUploads(
                bucketName: "bkt", prefix: "many/", olderThan: .zero, recordDirectoryPath: scratch.recordDirectory)
            #expect(report.aborted.count == 1003)
            #expect(try await tmUploadIds(client, prefix: "many/").isEmpty)
        }
    }

    @Test("sweep removes corrupt records, record temporaries and unreferenced download temp files; keeps live ones")
    func sweep() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(6 * Int(tmPartSize), seed: 92)
        let source = try scratch.write(bytes, to: "source.bin")
        let downloads = scratch.root.appendingPathComponent("downloads")
        try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
        try await withTMServer { _, client in
            // A live upload record and a live download record with its temporary file.
            try await tmUploadAndCancel(
                client, key: "sweep/up.bin", source: source, recordDirectory: scratch.recordDirectory, cancelAfter: 2)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "sweep/down.bin", data: Data(bytes)))
            var download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "sweep/down.bin", downloadToFileURL: downloads.appendingPathComponent("down.bin"),
                partSize: tmPartSize, threadNum: 1, recordDirectoryPath: scratch.recordDirectory)
            let handle = download
            let counter = TMCounter()
            download.downloadProgress = { _, _, _ in if counter.next() == 2 { handle.cancel() } }
            let error = await thrownClientError { _ = try await client.resumableDownload(download) }
            #expect(error?.code == .taskCancelled)
            let liveRecords = scratch.records()
            #expect(liveRecords.count == 2)
            let liveTemps = try FileManager.default.contentsOfDirectory(atPath: downloads.path).filter { $0.contains(".osstmp-") }
            #expect(liveTemps.count == 1)

            // Litter: a corrupt record, a foreign one (an upload record under a download name), a half-written
            // record temporary, an orphaned lock file and download journal, and a download temporary nobody refers to.
            let records = URL(fileURLWithPath: scratch.recordDirectory)
            let corrupt = String(repeating: "ab", count: 32) + ".upload.record"
            try Data("{\"magic\":\"garbage".utf8).write(to: records.appendingPathComponent(corrupt))
            let uploadRecord = try #require(liveRecords.first { $0.hasSuffix(".upload.record") })
            let foreign = String(repeating: "cd", count: 32) + ".download.record"
            try FileManager.default.copyItem(
                at: records.appendingPathComponent(uploadRecord), to: records.appendingPathComponent(foreign))
            let recordTemp = "." + String(repeating: "ef", count: 32) + ".upload.record.tmp-1f2e3d"
            try Data("partial".utf8).write(to: records.appendingPathComponent(recordTemp))
            let lock = String(repeating: "12", count: 32) + ".upload.record.lock"
            try Data().write(to: records.appendingPathComponent(lock))
            let journal = String(repeating: "34", count: 32) + ".download.record.journal"
            try Data(count: 120).write(to: records.appendingPathComponent(journal))
            let strayTemp = "other.bin.osstmp-0123456789abcdef"
            try Data("stray".utf8).write(to: downloads.appendingPathComponent(strayTemp))
            let unrelated = "notes.txt"
            try Data("keep".utf8).write(to: downloads.appendingPathComponent(unrelated))

            // Nothing is old enough yet.
            let early = try client.sweepStaleRecords(
                recordDirectoryPath: scratch.recordDirectory, olderThan: .seconds(3600),
                temporaryFileDirectories: [downloads.path])
            #expect(early.removedRecords.isEmpty)
            #expect(early.removedTemporaryFiles.isEmpty)

            let report = try client.sweepStaleRecords(
                recordDirectoryPath: scratch.recordDirectory, olderThan: .zero, temporaryFileDirectories: [downloads.path])
            #expect(Set(report.removedRecords.map { ($0 as NSString).lastPathComponent }) == [corrupt, foreign])
            #expect(
                Set(report.removedTemporaryFiles.map { ($0 as NSString).lastPathComponent }) == [
                    recordTemp, lock, journal, strayTemp,
                ])
            #expect(scratch.records() == liveRecords)
            #expect(
                Set(try FileManager.default.contentsOfDirectory(atPath: downloads.path)) == Set(liveTemps + [unrelated]))

            // The kept transfers still resume.
            let resumed = try await client.resumableDownload(
                OSSResumableDownloadRequest(
                    bucketName: "bkt", objectKey: "sweep/down.bin",
                    downloadToFileURL: downloads.appendingPathComponent("down.bin"), partSize: tmPartSize,
                    recordDirectoryPath: scratch.recordDirectory))
            #expect(resumed.resumedBytes > 0)
            #expect(try Data(contentsOf: downloads.appendingPathComponent("down.bin")) == Data(bytes))
        }
    }
}
