import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// The transport the tests run on: `OSS_TRANSPORT=urlsession|asynchttpclient` (scripts/test.sh runs the SDK's suites
/// once per transport), else the platform's default.
let transportUnderTest: OSSTransportKind =
    ProcessInfo.processInfo.environment["OSS_TRANSPORT"].flatMap(OSSTransportKind.init(name:)) ?? .automatic

/// Starts a local server with bucket `b` (plus `extraBuckets`), creates a client for it and runs `body`.
func withServerAndClient<T: Sendable>(
    version: OSSSignatureVersion = .v1,
    sts: Bool = false,
    faults: [LocalOSSFaultRule] = [],
    extraBuckets: [String] = [],
    configure: (inout OSSClientConfiguration) -> Void = { _ in },
    _ body: (LocalOSSServer, OSSClient) async throws -> T
) async throws -> T {
    let stsCredentials = OSSCredentials(
        accessKeyId: "STS.LocalTempKey", accessKeySecret: "LocalTempSecret", securityToken: "CAIS+Local/STS=Token")
    let serverConfiguration = LocalOSSServerConfiguration(
        stsCredentials: sts ? [stsCredentials] : [], region: "cn-hangzhou", buckets: ["bkt"] + extraBuckets,
        faults: faults)
    return try await withLocalOSSServer(serverConfiguration) { server in
        var configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: version)
        configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        configuration.transport = transportUnderTest
        // Tests that count requests must not see a retry because a loaded 2-core machine left the in-process
        // server unscheduled for a few seconds; stall detection itself is tested with its own limits
        // (StallDetectionTests) and at the default in the CLI and reliability suites.
        configuration.timeouts.stall = .seconds(15)
        configure(&configuration)
        let credentials = sts ? stsCredentials : server.credentials
        return try await withClient(of: server, credentials.provider, configuration, body)
    }
}

/// Creates a client for `server`, runs `body` with both, and shuts the client down afterwards (also when `body`
/// throws).
func withClient<T: Sendable>(
    of server: LocalOSSServer, _ provider: any OSSCredentialProvider, _ configuration: OSSClientConfiguration,
    _ body: (LocalOSSServer, OSSClient) async throws -> T
) async throws -> T {
    let client = try OSSClient(endpoint: server.endpoint, credentialProvider: provider, configuration: configuration)
    do {
        let result = try await body(server, client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}

/// The client error thrown by `body` run with a second client of `server`: `client`'s configuration changed by
/// `change` (e.g. no retries, a time limit). The second client is shut down afterwards.
func clientErrorWithVariant(
    of client: OSSClient, server: LocalOSSServer, _ change: (inout OSSClientConfiguration) -> Void,
    _ body: (OSSClient) async throws -> Void
) async throws -> OSSClientError? {
    var configuration = client.configuration
    change(&configuration)
    let variant = try OSSClient(
        endpoint: server.endpoint, credentialProvider: server.credentials.provider, configuration: configuration)
    let error = await thrownClientError { try await body(variant) }
    try await variant.shutdown()
    return error
}

/// A temporary file with `bytes`, removed by the caller via `removeTemporary`.
func makeTemporaryFile(_ bytes: [UInt8], name: String = UUID().uuidString) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-tests", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent(name)
    try Data(bytes).write(to: url)
    return url
}

func temporaryURL(_ name: String = UUID().uuidString) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-tests", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent(name)
}

/// Deterministic pseudo-random bytes.
func patternBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15
    var out = [UInt8]()
    out.reserveCapacity(count)
    for _ in 0..<count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        out.append(UInt8(truncatingIfNeeded: state >> 33))
    }
    return out
}

/// The client error code thrown by `body`, or nil when it throws something else or nothing.
func clientErrorCode(_ body: () async throws -> Void) async -> OSSClientErrorCode? {
    do {
        try await body()
        return nil
    } catch let error as OSSClientError {
        return error.code
    } catch {
        return nil
    }
}

/// The server error thrown by `body`, or nil.
func serverError(_ body: () async throws -> Void) async -> OSSServerError? {
    do {
        try await body()
        return nil
    } catch let error as OSSServerError {
        return error
    } catch {
        Issue.record("expected an OSSServerError, got \(error)")
        return nil
    }
}

/// The OSSClientError thrown by `body`, recording an issue when it throws something else or nothing.
func thrownClientError(_ body: () async throws -> Void) async -> OSSClientError? {
    do {
        try await body()
        Issue.record("expected an OSSClientError, got success")
        return nil
    } catch let error as OSSClientError {
        return error
    } catch {
        Issue.record("expected an OSSClientError, got \(error)")
        return nil
    }
}

/// The sample executable `name` (`resumable-upload`, `sync-directory`...) from the samples' own package
/// (`swift build --package-path Samples`, which scripts/test.sh runs first); `nil` when it is not built.
func sampleBinary(_ name: String) -> URL? {
    let candidate = samplesBinDirectory.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// Where the samples' package puts its debug executables (`$OSS_SAMPLES_BIN` overrides).
let samplesBinDirectory: URL = {
    if let path = ProcessInfo.processInfo.environment["OSS_SAMPLES_BIN"] { return URL(fileURLWithPath: path) }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return repository.appendingPathComponent("Samples/.build/debug")
}()

/// Starts a sample binary against `server` (its endpoint and bucket `bkt` first, then `arguments`), with the
/// server's credentials in the environment and its output discarded; the caller waits for it or kills it.
func launchSample(_ binary: URL, against server: LocalOSSServer, _ arguments: [String]) throws -> Process {
    let process = Process()
    process.executableURL = binary
    process.arguments = ["--endpoint", server.endpoint.absoluteString, "--bucket", "bkt"] + arguments
    process.environment = [
        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
        "OSS_ACCESS_KEY_ID": server.credentials.accessKeyId,
        "OSS_ACCESS_KEY_SECRET": server.credentials.accessKeySecret,
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
}

/// The server's request count of `operation` once it has stood still for a second: requests a stopped, paused or
/// killed client had on their way end (and store what they carry) before this returns. Through FoundationNetworking's
/// URLSession a request can reach the server after the task that sent it was cancelled.
@discardableResult
func settledRequests(_ server: LocalOSSServer, _ operation: LocalOSSOperation) async throws -> Int64 {
    var count = await server.stats()[operation].requests
    var stillPolls = 0
    for _ in 0..<100 where stillPolls < 5 {
        try await Task.sleep(for: .milliseconds(200))
        let now = await server.stats()[operation].requests
        stillPolls = now == count ? stillPolls + 1 : 0
        count = now
    }
    return count
}
