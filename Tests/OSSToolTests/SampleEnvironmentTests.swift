import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The samples read `OSS_ENDPOINT` and `OSS_REGION` like the `oss` CLI: the `put-object` sample (V4 signing)
/// uploads to the server named by `OSS_ENDPOINT`, and succeeds only with the region the server expects.
@Suite struct SampleEnvironmentTests {
    /// Built by the samples' own package (`swift build --package-path Samples`; `$OSS_SAMPLES_BIN` overrides).
    static var putObjectSample: URL { samplesBinDirectory.appendingPathComponent("put-object") }

    func runSample(environment: [String: String]) async throws -> Int32 {
        let process = Process()
        process.executableURL = Self.putObjectSample
        process.arguments = ["--bucket", "samples", "--key", "env.txt"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
    }

    @Test func putObjectSampleUsesOSSEndpointAndOSSRegion() async throws {
        #expect(FileManager.default.isExecutableFile(atPath: Self.putObjectSample.path), "\(Self.putObjectSample.path)")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sample-env-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        try await withLocalOSSServer(.init(region: "cn-shanghai", buckets: ["samples"])) { server in
            var environment = ToolRunner(server: server, home: home).environment
            environment["OSS_REGION"] = "cn-hangzhou"  // the old default: the V4 scope does not match the server's
            #expect(try await runSample(environment: environment) != 0)
            // It reached this server (OSS_ENDPOINT); on a loaded machine a stalled attempt may have been retried.
            #expect(await server.stats()[.putObject].requests >= 1)
            environment["OSS_REGION"] = "cn-shanghai"
            #expect(try await runSample(environment: environment) == 0)
            let client = try OSSClient(endpoint: server.endpoint, credentialProvider: server.credentials.provider)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "samples", objectKey: "env.txt"))
            try await client.shutdown()
            #expect(head.contentType == "text/plain")
        }
    }
}
