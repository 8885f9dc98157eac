// The ```swift blocks of UsingInAniOSApp.md, verbatim (DocSnippetsTests checks it), in the context an app gives
// them. Compiled in Swift 6 language mode with strict concurrency, as an app target is.
import AliyunOSS
import Foundation
import Observation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(SwiftUI)
import SwiftUI
#endif

// MARK: Set up the client

func makeClient() throws -> OSSClient {
    let configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: .v4)
    let client = try OSSClient(
        endpoint: "https://oss-cn-hangzhou.aliyuncs.com",
        credentialProvider: myRefreshingSTSProvider,
        configuration: configuration)
    return client
}

// Apple only: FoundationNetworking's configuration has no settable waitsForConnectivity and no
// allowsConstrainedNetworkAccess. Checked against Apple's documentation: URLSessionConfiguration.waitsForConnectivity
// (iOS 11, macOS 10.13), allowsCellularAccess (iOS 7), allowsConstrainedNetworkAccess (iOS 13, macOS 10.15), all
// `var ...: Bool { get set }`.
#if canImport(Darwin)
func makeClient(configuration: OSSClientConfiguration) throws -> OSSClient {
    let session = URLSessionConfiguration.default
    session.waitsForConnectivity = true          // wait for a network instead of failing at once
    session.allowsCellularAccess = false         // Wi-Fi only for large videos
    session.allowsConstrainedNetworkAccess = false  // respect Low Data Mode
    let transport = OSSURLSessionTransport(configuration: configuration, sessionConfiguration: session)
    let client = try OSSClient(
        endpoint: "https://oss-cn-hangzhou.aliyuncs.com", credentialProvider: myRefreshingSTSProvider,
        configuration: configuration, transport: transport)
    return client
}
#endif

// MARK: Upload with progress in a SwiftUI view (Observation: iOS 17, macOS 14)

@available(iOS 17, macOS 14, tvOS 17, watchOS 10, *)
enum UploadSnippet {
    @MainActor @Observable
    final class UploadModel {
        var fraction = 0.0
        var status = "idle"
        private var request: OSSResumableUploadRequest?

        func start(client: OSSClient, file: URL, records: URL) async {
            let request = OSSResumableUploadRequest(
                bucketName: "videos", objectKey: "clips/\(file.lastPathComponent)", uploadingFileURL: file,
                recordDirectoryPath: records.path, deleteUploadIdOnCancelling: false,
                uploadProgress: { [weak self] _, done, total in
                    Task { @MainActor in self?.fraction = total > 0 ? Double(done) / Double(total) : 0 }
                })
            self.request = request
            status = "uploading"
            do {
                _ = try await client.resumableUpload(request)
                status = "done"
            } catch let error as OSSClientError where error.code == .taskPaused {
                status = "paused"    // the record and the upload id are kept
            } catch {
                status = "failed: \(error)"
            }
        }

        func pause() { request?.pause() }
    }

    struct UploadView: View {
        @State var model = UploadModel()
        @Environment(\.scenePhase) private var scenePhase

        var body: some View {
            VStack {
                ProgressView(value: model.fraction)
                Text(model.status)
            }
            .onChange(of: scenePhase) { _, phase in
                if phase == .background { model.pause() }
            }
        }
    }
}

// MARK: Pause on background, resume at launch

func resumeSuspendedTransfers(client: OSSClient, records: URL) async throws {
    let manager = OSSTransferManager(client: client, recordDirectoryPath: records.path)
    for transfer in try await manager.transfers() where transfer.state == .suspended {
        Task { try await manager.resume(transfer.id) }
    }
}

// MARK: Stalled connections

func slowLinkConfiguration() -> OSSClientConfiguration {
    var configuration = OSSClientConfiguration(region: "cn-hangzhou")
    configuration.timeouts.stall = .seconds(10)   // a very slow satellite link; nil turns the watchdog off
    return configuration
}
