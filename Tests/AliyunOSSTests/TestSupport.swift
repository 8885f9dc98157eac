import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

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
        var configuration = testClientConfiguration(version: version)
        configure(&configuration)
        let credentials = sts ? stsCredentials : server.credentials
        return try await withClient(of: server, credentials.provider, configuration, body)
    }
}

/// The configuration of the tests' clients: the transport under test, quick retries, and a stall limit that a loaded
/// machine does not reach.
func testClientConfiguration(version: OSSSignatureVersion = .v1) -> OSSClientConfiguration {
    var configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: version)
    configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
    configuration.transport = transportUnderTest
    // Tests that count requests must not see a retry because a loaded 2-core machine left the in-process
    // server unscheduled for a few seconds; stall detection itself is tested with its own limits
    // (StallDetectionTests) and at the default in the CLI and reliability suites.
    configuration.timeouts.stall = .seconds(15)
    return configuration
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

/// Why a test cannot set up the real thing it needs (a tmpfs, fanotify: root on Linux). The test fails with this
/// reason rather than passing without checking anything.
struct SetupUnavailable: Error, CustomStringConvertible {
    let description: String
}

/// Whether the tests run on Linux, where they mount a tmpfs or hold file reads with fanotify; elsewhere those tests
/// are disabled, naming why.
let runsOnLinux: Bool = {
    #if os(Linux)
    return true
    #else
    return false
    #endif
}()
