// The ```swift blocks of DirectoryTransfers.md, verbatim (DocSnippetsTests checks it), in the context an app
// gives them. Compiled in Swift 6 language mode with strict concurrency, as an app target is.
import AliyunOSS
import Foundation
#if canImport(SwiftUI)
import SwiftUI
#endif

// MARK: Uploading a directory

func uploadSite(siteFolder: URL) async throws {
    let manager = OSSTransferManager(
        client: client, recordDirectoryPath: supportDirectory.appendingPathComponent("oss-records").path)
    var options = OSSDirectoryTransferOptions()
    options.exclude = [".git", "*.tmp", "drafts/"]
    let batch = try await manager.uploadDirectory(siteFolder, toBucket: "my-bucket", prefix: "site/", options: options)
    let report = try await batch.result()
    print(report.counts.uploaded, "uploaded,", report.counts.failed, "failed")
    for item in report.problems {
        print(item.relativePath, item.outcome)
    }
}

// MARK: Downloading a prefix

func downloadPhotos(manager: OSSTransferManager, into folder: URL) async throws -> OSSBatchReport {
    let batch = try await manager.downloadDirectory(fromBucket: "my-bucket", prefix: "photos/2026/", to: folder)
    return try await batch.result()
}

// MARK: Syncing

func syncBackup(manager: OSSTransferManager, folder: URL) async throws {
    var options = OSSDirectoryTransferOptions()
    options.mode = .sync(.sizeAndModificationTime)  // or .sync(.checksum)
    options.deleteExtras = true
    options.dryRun = true
    let plan = try await manager.uploadDirectory(folder, toBucket: "my-bucket", prefix: "backup/", options: options)
    for await event in plan.events {
        if case .item(let item) = event, item.outcome != .unchanged {
            print(item.outcome, item.key)  // wouldUpload backup/notes.txt, wouldDelete backup/old.txt ...
        }
    }
    options.dryRun = false
    let report = try await manager.uploadDirectory(folder, toBucket: "my-bucket", prefix: "backup/", options: options).result()
    print(report.counts.uploaded, "sent,", report.counts.unchanged, "unchanged,", report.counts.deleted, "deleted")
}

// MARK: Batches from a list

func uploadPhotos(manager: OSSTransferManager, photos: [(url: URL, name: String)]) async throws {
    let items = photos.map { photo in
        OSSBatchUploadItem(file: photo.url, key: "albums/trip/" + photo.name, contentType: "image/heic")
    }
    let batch = try await manager.uploadBatch(items, toBucket: "my-bucket")
    let report = try await batch.result()
    print(report.counts.uploaded, "of", items.count, "uploaded")
}

/// A stand-in for an app's encoder of a recording.
func makeRecordingStream() -> AsyncThrowingStream<Data, any Error> {
    AsyncThrowingStream { $0.finish() }
}

/// A stand-in for what an app keeps of the data it uploads.
func savedDraft(forKey key: String) -> Data? { nil }

func uploadCoverAndVoice(manager: OSSTransferManager, jpegData: Data) async throws {
    let cover = OSSBatchUploadItem(data: jpegData, key: "albums/trip/cover.jpg", contentType: "image/jpeg")
    let voice = OSSBatchUploadItem(
        key: "albums/trip/voice.m4a", source: .stream(expectedSize: nil, make: { makeRecordingStream() }))
    let batch = try await manager.uploadBatch([cover, voice], toBucket: "my-bucket")
    _ = try await batch.result()
}

func downloadChosen(manager: OSSTransferManager, into folder: URL) async throws -> OSSBatchReport {
    let items = [
        OSSBatchDownloadItem(key: "albums/trip/1.heic", path: "1.heic"),
        OSSBatchDownloadItem(key: "albums/trip/2.heic", path: "2.heic"),
    ]
    let batch = try await manager.downloadBatch(items, fromBucket: "my-bucket", to: folder)
    return try await batch.result()
}

func resumeListsAfterLaunch(manager: OSSTransferManager) async throws {
    for info in try await manager.batches() where info.state.isResumable {
        let batch = try await manager.resumeBatch(info.id) { item in
            guard let data = savedDraft(forKey: item.key) else { return nil }  // batchSourceNeeded
            return .data(data)
        }
        _ = try await batch.result()
    }
}

// MARK: Progress

func watch(_ batch: OSSBatch) async {
    for await event in batch.events {
        switch event {
        case .progress(let progress):
            let eta = progress.estimatedTimeRemaining.map { "\($0)" } ?? "?"
            print("\(progress.filesDone)/\(progress.filesTotal) files, \(Int(progress.bytesPerSecond)) B/s, \(eta) left")
        case .item(let item) where item.outcome.isFailure:
            print("failed:", item.key, item.outcome)
        default:
            break
        }
    }
}

struct BatchProgressView: View {
    let batch: OSSBatch

    var body: some View {
        ProgressView(batch.progress)
    }
}

// MARK: Resuming a batch

func resumeBatchesAfterLaunch(manager: OSSTransferManager) async throws {
    for info in try await manager.batches() where info.state.isResumable {
        print(info.id, info.request.direction, info.state, info.counts.uploaded + info.counts.downloaded, "done")
        let batch = try await manager.resumeBatch(info.id)
        _ = try await batch.result()
    }
}

func pauseAndCancel(batch: OSSBatch, manager: OSSTransferManager) async throws {
    batch.pause()  // or cancel the task awaiting batch.result(): journal and transfers in flight kept
    do {
        _ = try await batch.result()
    } catch let error as OSSClientError where error.code == .taskPaused {
        let resumed = try await manager.resumeBatch(batch.id)
        resumed.cancel()  // stops it and removes it: uploads in flight aborted, journal deleted
    }
}

func stopAtFirstFailure(manager: OSSTransferManager, folder: URL) async throws {
    var options = OSSDirectoryTransferOptions()
    options.failurePolicy = .stopOnFirstFailure
    let batch = try await manager.uploadDirectory(folder, toBucket: "my-bucket", prefix: "strict/", options: options)
    do {
        _ = try await batch.result()
    } catch let error as OSSClientError where error.code == .batchStopped {
        let failure = error.underlying as? OSSBatchFailure
        print("stopped:", error.message, failure?.serverErrorCode ?? failure?.clientErrorCode?.rawValue ?? "")
        // Fix the cause, then: try await manager.resumeBatch(batch.id)
    }
}
