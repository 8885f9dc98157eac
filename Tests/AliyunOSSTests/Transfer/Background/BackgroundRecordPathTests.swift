@testable import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSResumable
import Testing

/// Background records store local paths relative to the base directory (iOS moves an app's container across
/// updates and restores), as foreground records do; records written with absolute paths still load.
@Suite("Background record paths")
struct BackgroundRecordPathTests {
    @Test("paths inside the base directory are stored relative; the moved container finishes the upload and download")
    func relativePathsSurviveAMove() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let container = work.appendingPathComponent("container-A")
        let moved = work.appendingPathComponent("container-B")
        try FileManager.default.createDirectory(at: container.appendingPathComponent("Documents"), withIntermediateDirectories: true)
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 3 &+ ($0 >> 9)) }
        try Data(bytes).write(to: container.appendingPathComponent("Documents/video.mov"))
        let spool = work.appendingPathComponent("spool").path  // the system's, outside the container
        try await withServerAndClient(version: .v4) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "d.bin", data: Data(bytes)))
            func service(_ base: URL) -> OSSBackgroundTransferService {
                OSSBackgroundTransferService(
                    client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "paths"),
                    recordDirectoryPath: "Library/oss-background", baseDirectoryURL: base)
            }
            let before = service(container)
            #expect(before.recordDirectoryPath == OSSRecordStore.absolutePath(container.path) + "/Library/oss-background")
            let upload = try await before.startUpload(
                OSSBackgroundUploadRequest(
                    bucketName: "bkt", objectKey: "video.mov", uploadingFileURL: container.appendingPathComponent("Documents/video.mov"),
                    partSize: 102_400))
            let download = try await before.startDownload(
                OSSBackgroundDownloadRequest(
                    bucketName: "bkt", objectKey: "d.bin", downloadToFileURL: container.appendingPathComponent("Documents/d.bin"),
                    partSize: 102_400))
            // As stored: relative.
            let raw = OSSRecordStore(directoryPath: before.recordDirectoryPath)
            let storedUpload = try #require(
                try raw.loadStored(OSSBackgroundUploadRecord.self, name: OSSBackgroundTransferService.recordName(upload)))
            #expect(storedUpload.filePath == "Documents/video.mov")
            let storedDownload = try #require(
                try raw.loadStored(OSSBackgroundDownloadRecord.self, name: OSSBackgroundTransferService.downloadRecordName(download)))
            #expect(storedDownload.destinationPath == "Documents/d.bin")
            #expect(storedDownload.tempFilePath == "Documents/.d.bin.\(download).download")

            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "paths").run(exitWhenIdle: true)
            // The app is updated: its container moves.
            try FileManager.default.moveItem(at: container, to: moved)
            let after = service(moved)
            let listed = try after.backgroundTransfers()
            let movedPath = OSSRecordStore.absolutePath(moved.path)
            #expect(Set(listed.map(\.filePath)) == [movedPath + "/Documents/video.mov", movedPath + "/Documents/d.bin"])
            let report = try await after.reconcile()
            #expect(report.failures.isEmpty, "\(report.failures.map { $0.error ?? "" })")
            #expect(report.transfers.allSatisfy { $0.completedCRC64 == CRC64.checksum(bytes) })
            #expect([UInt8](try Data(contentsOf: moved.appendingPathComponent("Documents/d.bin"))) == bytes)
            #expect(try after.backgroundTransfers().isEmpty)
            #expect(await server.stats()[.uploadPart].requests == 3)
        }
    }

    @Test("a record written with absolute paths (no base directory) loads and finishes under a service that has one")
    func absoluteRecordsStillLoad() async throws {
        let work = try BackgroundTransferServiceTests.scratch()
        defer { try? FileManager.default.removeItem(at: work) }
        let bytes = [UInt8](repeating: 9, count: 150_000)
        let file = work.appendingPathComponent("Documents/a.bin")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        let spool = work.appendingPathComponent("spool").path
        let records = work.appendingPathComponent("records").path
        try await withServerAndClient(version: .v4) { server, client in
            let old = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "old"),
                recordDirectoryPath: records)
            let id = try await old.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "a.bin", uploadingFileURL: file, partSize: 102_400))
            let stored = try #require(
                try OSSRecordStore(directoryPath: records).loadStored(
                    OSSBackgroundUploadRecord.self, name: OSSBackgroundTransferService.recordName(id)))
            #expect(stored.filePath == OSSRecordStore.absolutePath(file.path))
            _ = try await OSSSimulatedTransferDaemon(spoolDirectory: spool, sessionIdentifier: "old").run(exitWhenIdle: true)
            let new = OSSBackgroundTransferService(
                client: client, system: OSSSimulatedTaskSystem(spoolDirectory: spool, sessionIdentifier: "old"),
                recordDirectoryPath: records, baseDirectoryURL: work)
            #expect(try new.backgroundTransfers().map(\.filePath) == [OSSRecordStore.absolutePath(file.path)])
            let report = try await new.reconcile()
            #expect(report.transfers.first?.completedCRC64 == CRC64.checksum(bytes))
        }
    }
}
