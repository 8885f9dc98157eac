import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// A throttled server (503 `TotalQpsLimitExceeded` with `x-oss-qos-delay-time` and `Retry-After`, and every request
/// inside the throttle window refused too): transfers finish, the client waits the delay the server names, one
/// throttled answer pauses every request of the client, and the retries stay bounded. Everything is counted by
/// the server; nothing asserts on wall time.
@Suite("Throttling (503 with x-oss-qos-delay-time)")
struct ThrottlingTests {
    static func throttle(_ operation: LocalOSSOperation, nth: Int, ms: Int) -> LocalOSSFaultRule {
        LocalOSSFaultRule(operation: operation, trigger: .nth(nth), action: .throttle(milliseconds: ms, code: nil))
    }

    @Test("a throttled request is retried after the delay the server names, not into the throttle window")
    func honoursTheServerDelay() async throws {
        // The client's own backoff is 1-5 ms: without honouring the 400 ms the server asks for, its three retries
        // all land in the window and the call fails with the 503.
        try await withTMServer(faults: [Self.throttle(.putObject, nth: 1, ms: 400)]) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            let stats = await server.stats()
            #expect(stats.throttleWindows == 1)
            #expect(stats.throttledRequests == 1)
            #expect(stats[.putObject].requests == 2)
        }
    }

    @Test("one throttled answer pauses every request of the client: none is sent into the window")
    func throttledAnswerPausesTheWholeClient() async throws {
        try await withTMServer(faults: [Self.throttle(.putObject, nth: 1, ms: 600)]) { server, client in
            try await Self.withoutRetries(client, server) { client in
                // A client that does not retry still learns from the answer it gives up on.
                let first = await serverErrorOf {
                    _ = try await client.putObject(
                        OSSPutObjectRequest(bucketName: "bkt", objectKey: "first", data: Data("1".utf8)))
                }
                #expect(first?.statusCode == 503)
                #expect(first?.code == "TotalQpsLimitExceeded")
                #expect(first?.headers["x-oss-qos-delay-time"] == "600")
                #expect(first?.headers["retry-after"] == "1")
                // Eight requests started right after it wait for the window to close instead of running into it
                // (they would fail: no retries).
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for n in 0..<8 {
                        group.addTask {
                            _ = try await client.putObject(
                                OSSPutObjectRequest(bucketName: "bkt", objectKey: "after-\(n)", data: Data("\(n)".utf8)))
                        }
                    }
                    try await group.waitForAll()
                }
            }
            let stats = await server.stats()
            #expect(stats.throttledRequests == 1)
            #expect(stats[.putObject].requests == 9)
        }
    }

    @Test("a task cancelled while the client is paused by a throttled answer ends with taskCancelled at once")
    func cancellationDuringThePauseIsNotSwallowed() async throws {
        // A 20-second window: a swallowed cancellation would wait it out and then succeed.
        try await withTMServer(faults: [Self.throttle(.putObject, nth: 1, ms: 20_000)]) { server, client in
            let task = Task {
                try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            }
            for _ in 0..<1000 where await server.stats().throttledRequests == 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
            task.cancel()
            let error = await thrownClientError { _ = try await task.value }
            #expect(error?.code == .taskCancelled)
            #expect(await server.stats()[.putObject].requests == 1)
        }
    }

    @Test("resumable upload and download under throttle windows: identical, retries bounded by the parts in flight")
    func transfersFinishUnderThrottling() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let parts = 24
        let threads = 4
        let bytes = patternBytes(parts * Int(tmPartSize) - 777, seed: 91)
        let source = try scratch.write(bytes, to: "source.bin")
        // Up to four 150 ms windows, opened at seeded points, on parts of both directions.
        let rules = [
            LocalOSSFaultRule(
                operation: .uploadPart, trigger: .random(rate: 0.2, seed: 7), action: .throttle(milliseconds: 150, code: nil),
                times: 4),
            LocalOSSFaultRule(
                operation: .getObject, trigger: .random(rate: 0.2, seed: 8),
                action: .throttle(milliseconds: 150, code: "DownloadTrafficRateLimitExceeded"), times: 4),
        ]
        try await withTMServer(faults: rules) { server, client in
            let upload = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "throttled.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: threads, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(upload)
            #expect(result.crc64 == CRC64.checksum(bytes))
            let up = await server.stats()
            #expect(up.throttleWindows >= 1)
            // Each window refuses at most the parts already on their way when it opened; every other request waited.
            #expect(up.throttledRequests <= up.throttleWindows * Int64(threads))
            #expect(up[.uploadPart].requests == Int64(parts) + up.throttledRequests)

            await server.resetStats()
            let destination = scratch.file("copy.bin")
            let download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "throttled.bin", downloadToFileURL: destination, partSize: tmPartSize,
                threadNum: threads, recordDirectoryPath: scratch.recordDirectory)
            _ = try await client.resumableDownload(download)
            #expect(Array(try Data(contentsOf: destination)) == bytes)
            let down = await server.stats()
            #expect(down.throttleWindows >= 1)
            #expect(down.throttledRequests <= down.throttleWindows * Int64(threads))
            #expect(down[.getObject].requests == Int64(parts) + down.throttledRequests)
            print("THROTTLE upload windows=\(up.throttleWindows) refused=\(up.throttledRequests) "
                + "download windows=\(down.throttleWindows) refused=\(down.throttledRequests) threads=\(threads)")
        }
    }

    /// Runs `body` with a client like `client` that does not retry.
    static func withoutRetries(
        _ client: OSSClient, _ server: LocalOSSServer, _ body: (OSSClient) async throws -> Void
    ) async throws {
        var configuration = client.configuration
        configuration.maxRetryCount = 0
        let variant = try OSSClient(
            endpoint: server.endpoint, credentialProvider: server.credentials.provider, configuration: configuration)
        do {
            try await body(variant)
            try await variant.shutdown()
        } catch {
            try? await variant.shutdown()
            throw error
        }
    }
}
