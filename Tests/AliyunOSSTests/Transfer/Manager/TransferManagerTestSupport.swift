import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

/// A fresh directory for one transfer-manager test (files, record directory), removed by `cleanup()`.
struct TMScratch {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory
            .appendingPathComponent("aliyun-oss-tm-tests", isDirectory: true)
            .appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    var recordDirectory: String { root.appendingPathComponent("records").path }

    func file(_ name: String) -> URL { root.appendingPathComponent(name) }

    func write(_ bytes: [UInt8], to name: String) throws -> URL {
        let url = file(name)
        try Data(bytes).write(to: url)
        return url
    }

    /// The file names in the record directory that are records (not lock or temporary files).
    func records() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: recordDirectory)) ?? [])
            .filter { $0.hasSuffix(".upload.record") || $0.hasSuffix(".download.record") }.sorted()
    }

    func cleanup() {
        try? FileManager.default.removeItem(at: root)
    }
}

let tmPartSize: Int64 = 102_400

/// The local server's STS credentials used by these tests, and a wrong token for the same key.
enum TMCredentials {
    static let first = OSSCredentials(
        accessKeyId: "STS.TMFirstKey", accessKeySecret: "TMFirstSecret", securityToken: "CAIS+TM/First=Token")
    static let second = OSSCredentials(
        accessKeyId: "STS.TMSecondKey", accessKeySecret: "TMSecondSecret", securityToken: "CAIS+TM/Second=Token")
    /// The first key with a token the server does not know: answered with 403 InvalidSecurityToken.
    static let staleToken = OSSCredentials(
        accessKeyId: first.accessKeyId, accessKeySecret: first.accessKeySecret, securityToken: "CAIS+TM/Stale=Token")

    static func token(_ credentials: OSSCredentials) -> OSSFederationToken {
        OSSFederationToken(
            accessKeyId: credentials.accessKeyId, accessKeySecret: credentials.accessKeySecret,
            securityToken: credentials.securityToken, expiration: Date().addingTimeInterval(3600))
    }
}

/// Starts a local server with bucket `bkt` and the STS credentials of ``TMCredentials``, and a client for it
/// signing with `provider` (the server's main key when nil).
func withTMServer<T: Sendable>(
    provider: (any OSSCredentialProvider)? = nil,
    faults: [LocalOSSFaultRule] = [],
    _ body: (LocalOSSServer, OSSClient) async throws -> T
) async throws -> T {
    let configuration = LocalOSSServerConfiguration(
        stsCredentials: [TMCredentials.first, TMCredentials.second], buckets: ["bkt"], faults: faults)
    return try await withLocalOSSServer(configuration) { server in
        var clientConfiguration = OSSClientConfiguration(region: "cn-hangzhou")
        clientConfiguration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        clientConfiguration.transport = transportUnderTest
        clientConfiguration.timeouts.stall = .seconds(15)  // as withServerAndClient: no retries from a loaded machine
        return try await withClient(of: server, provider ?? server.credentials.provider, clientConfiguration, body)
    }
}

/// Counts calls of a credential closure.
final class TMCounter: Sendable {
    private let box = NIOLockedValueBox(0)

    /// Increments and returns the new count.
    func next() -> Int { box.withLockedValue { $0 += 1; return $0 } }

    var value: Int { box.withLockedValue { $0 } }
}

/// Collects events from a manager's stream in the background.
final class TMEventLog: Sendable {
    private let box = NIOLockedValueBox<[OSSTransferEvent]>([])

    func append(_ event: OSSTransferEvent) { box.withLockedValue { $0.append(event) } }

    var events: [OSSTransferEvent] { box.withLockedValue { $0 } }

    /// Starts a task draining `stream` into the log.
    func drain(_ stream: AsyncStream<OSSTransferEvent>) -> Task<Void, Never> {
        Task { for await event in stream { self.append(event) } }
    }
}


/// Uploads `source` resumably with records kept on cancel, and cancels the run once `cancelAfter` parts are
/// confirmed. Returns after the run threw `taskCancelled`.
func tmUploadAndCancel(
    _ client: OSSClient, key: String, source: URL, recordDirectory: String, cancelAfter: Int
) async throws {
    var request = OSSResumableUploadRequest(
        bucketName: "bkt", objectKey: key, uploadingFileURL: source, partSize: tmPartSize, threadNum: 2,
        recordDirectoryPath: recordDirectory, deleteUploadIdOnCancelling: false)
    let handle = request
    let counter = TMCounter()
    request.uploadProgress = { _, _, _ in
        if counter.next() == cancelAfter { handle.cancel() }
    }
    let error = await thrownClientError { _ = try await client.resumableUpload(request) }
    #expect(error?.code == .taskCancelled)
}

/// The upload ids of the multipart uploads in progress in `bkt`.
func tmUploadIds(_ client: OSSClient, prefix: String? = nil) async throws -> [String] {
    var ids: [String] = []
    for try await page in client.listMultipartUploadsPaginator(
        OSSListMultipartUploadsRequest(bucketName: "bkt", prefix: prefix))
    {
        ids += page.uploads.map(\.uploadId)
    }
    return ids
}
