// The ```swift blocks of BackgroundTransfers.md, verbatim (DocSnippetsTests checks it), in the context an app
// gives them. Compiled in Swift 6 language mode with strict concurrency, as an app target is.
import AliyunOSS
import Foundation
#if canImport(SwiftUI)
import SwiftUI
#endif
#if os(iOS) || os(visionOS)
import UIKit
#endif

// MARK: Wiring: UIKit

final class AppDelegate: NSObject, UIApplicationDelegate {
    static let sessionIdentifier = "com.example.app.oss-background"
    lazy var transfers = OSSBackgroundTransferService(
        client: client,
        system: OSSURLSessionBackgroundTaskSystem(
            identifier: Self.sessionIdentifier, eventDirectory: supportDirectory.appendingPathComponent("oss-events").path),
        recordDirectoryPath: supportDirectory.appendingPathComponent("oss-background").path,
        baseDirectoryURL: URL(fileURLWithPath: NSHomeDirectory()))

    func application(
        _ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
        completionHandler: @escaping () -> Void
    ) {
        transfers.handleEventsForBackgroundURLSession(identifier: identifier, completionHandler: completionHandler)
    }
}

@MainActor
func startBackgroundUpload(appDelegate: AppDelegate, videoURL: URL) async throws -> String {
    let id = try await appDelegate.transfers.startUpload(
        OSSBackgroundUploadRequest(bucketName: "photos", objectKey: "2026/video.mov", uploadingFileURL: videoURL))
    return id
}

// MARK: Wiring: SwiftUI

final class AppModel: Sendable {
    static let shared = AppModel()
    static let sessionIdentifier = "com.example.app.oss-background"
    let transfers = OSSBackgroundTransferService(
        client: client,
        system: OSSURLSessionBackgroundTaskSystem(
            identifier: AppModel.sessionIdentifier, eventDirectory: supportDirectory.appendingPathComponent("oss-events").path),
        recordDirectoryPath: supportDirectory.appendingPathComponent("oss-background").path,
        baseDirectoryURL: URL(fileURLWithPath: NSHomeDirectory()))
}

@main
struct PhotosApp: App {
    var body: some Scene {
        WindowGroup { ContentView() }
            .backgroundTask(.urlSession(AppModel.sessionIdentifier)) {
                _ = try? await AppModel.shared.transfers.handleEvents()
            }
    }
}

// MARK: Downloads

func startBackgroundDownload(transfers: OSSBackgroundTransferService, destination: URL) async throws -> String {
    let id = try await transfers.startDownload(
        OSSBackgroundDownloadRequest(bucketName: "videos", objectKey: "film.mp4", downloadToFileURL: destination))
    return id
}
