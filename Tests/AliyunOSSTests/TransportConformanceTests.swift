@testable import AliyunOSS
import Foundation
#if !canImport(Darwin)
import AliyunOSSObservability
import AsyncHTTPClient
import InMemoryTracing
import NIOCore
import Tracing
#endif
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Behaviour every transport must share, checked on both in the same run (the rest of the SDK's suites run once per
/// transport from scripts/test.sh, with OSS_TRANSPORT).
@Suite("Transports: the same behaviour through URLSession and AsyncHTTPClient")
struct TransportConformanceTests {
    static let transports: [OSSTransportKind] = OSSTransportKind.allCases.filter { $0 != .automatic }

    @Test("a 24 MiB object goes up from a file range and comes back streamed, byte-identical", arguments: transports)
    func streamsBothWays(transport: OSSTransportKind) async throws {
        let bytes = patternBytes(24 << 20, seed: 7)
        let file = try makeTemporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: file) }
        try await withServerAndClient(configure: { $0.transport = transport }) { _, client in
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "big", fileURL: file))
            #expect(put.crc64 == CRC64.checksum(bytes))
            let destination = try temporaryURL()
            defer { try? FileManager.default.removeItem(at: destination) }
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "big"), toFile: destination)
            #expect(try Data(contentsOf: destination) == Data(bytes))
        }
    }

    @Test("a missing key is a typed server error with its OSS code", arguments: transports)
    func serverErrorsAreTyped(transport: OSSTransportKind) async throws {
        try await withServerAndClient(configure: { $0.transport = transport }) { server, client in
            let error = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "nope"))
            }
            #expect(error?.statusCode == 404 && error?.code == "NoSuchKey")
            #expect(await server.stats()[.getObject].requests == 1)
        }
    }

    @Test("a whole-request time limit is a network error, not a cancellation", arguments: transports)
    func requestTimeLimitIsANetworkError(transport: OSSTransportKind) async throws {
        try await withServerAndClient(
            faults: [try LocalOSSFaultRule(parsing: "GetObject:delay=8000")], configure: { $0.transport = transport }
        ) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "slow", data: Data("x".utf8)))
            // A second client whose requests may take 1 s in all (only its GET is made, so machine load cannot
            // make another request hit the limit).
            let error = try await clientErrorWithVariant(of: client, server: server, {
                $0.timeouts.request = .seconds(1)
                $0.retry.maxRetryCount = 0
            }) {
                _ = try await $0.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "slow"))
            }
            #expect(error?.code == .networkError)
        }
    }

    @Test("cancelling the Swift task cancels the request: taskCancelled", arguments: transports)
    func taskCancellationCancelsTheRequest(transport: OSSTransportKind) async throws {
        try await withServerAndClient(
            faults: [try LocalOSSFaultRule(parsing: "GetObject:delay=30000")], configure: { $0.transport = transport }
        ) { _, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "held", data: Data("x".utf8)))
            let task = Task {
                try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "held"))
            }
            try await Task.sleep(for: .milliseconds(200))
            task.cancel()
            let code = await clientErrorCode { _ = try await task.value }
            #expect(code == .taskCancelled)
        }
    }

    @Test("a dropped connection is retried and the object is still right", arguments: transports)
    func droppedConnectionIsRetried(transport: OSSTransportKind) async throws {
        let bytes = patternBytes(3 << 20, seed: 9)
        try await withServerAndClient(
            faults: [try LocalOSSFaultRule(parsing: "GetObject:nth=1:drop=100000")], configure: { $0.transport = transport }
        ) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "drop", data: Data(bytes)))
            let destination = try temporaryURL()
            defer { try? FileManager.default.removeItem(at: destination) }
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "drop"), toFile: destination)
            #expect(try Data(contentsOf: destination) == Data(bytes))
            #expect(await server.stats()[.getObject].requests == 2)
        }
    }
}

/// A client shut down in the middle of a resumable download (either transport: the `urlsession` step runs this
/// suite again on URLSession).
extension TransportConformanceTests {
    @Test("a download whose client is shut down midway keeps its bytes and record; a new client resumes it")
    func shutdownMidDownloadKeepsItsState() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        let partSize: Int64 = 256 * 1024
        let bytes = patternBytes(8 * Int(partSize) - 99, seed: 40)
        let destination = work.appendingPathComponent("copy.bin")
        let records = work.appendingPathComponent("records").path
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])) { server in
            let owner = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration())
            _ = try await owner.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "big.bin", data: Data(bytes)))
            try await owner.shutdown()
            await server.addFault(LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 400)))
            let client = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration())
            let shutDown = OSSLockedValue(false)
            let download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "big.bin", downloadToFileURL: destination, partSize: partSize, threadNum: 2,
                recordDirectoryPath: records
            ) { _, done, _ in
                // The first written part shuts the client down while the next ones are in flight or waiting.
                guard done > 0, shutDown.withLockedValue({ let first = !$0; $0 = true; return first }) else { return }
                Task { try? await client.shutdown() }
            }
            var failure: (any Error)?
            do {
                _ = try await client.resumableDownload(download)
            } catch {
                failure = error
            }
            let error = try #require(failure, "the download finished although its client was shut down")
            #expect(OSSErrorDisposition(error) != .final, "\(error)")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
            #expect(!(try FileManager.default.contentsOfDirectory(atPath: records)).isEmpty, "the record is kept")

            await server.clearFaults()
            let again = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration())
            let resumed = try await again.resumableDownload(
                OSSResumableDownloadRequest(
                    bucketName: "bkt", objectKey: "big.bin", downloadToFileURL: destination, partSize: partSize,
                    threadNum: 2, recordDirectoryPath: records))
            try await again.shutdown()
            #expect(Array(try Data(contentsOf: destination)) == bytes)
            #expect(resumed.resumedBytes > 0, "the parts written before the shutdown were kept")
        }
    }
}

#if !canImport(Darwin)
/// The AsyncHTTPClient transport's file bodies (Linux): read in turns into two buffers, never overwriting one the
/// connection still holds.
extension TransportConformanceTests {
    @Test("AsyncHTTPClient file bodies: two buffers take turns; one still held when its turn comes is replaced")
    func fileRangeChunksTakeTurns() async throws {
        let bytes = patternBytes((5 << 20) + 123, seed: 12)
        let url = try makeTemporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        try await OSSFile.withFile(url.path, .read) { file in
            let chunks = AsyncHTTPClientTransport.FileRangeChunks(
                file: file, range: 100..<Int64(bytes.count), chunkLength: 1 << 20)
            var iterator = chunks.makeAsyncIterator()
            var held: ByteBuffer?
            var received: [UInt8] = []
            var storage: [UInt] = []
            while let chunk = try await iterator.next() {
                received += chunk.readableBytesView
                storage.append(UInt(bitPattern: chunk.withUnsafeReadableBytes { $0.baseAddress }))
                // The first chunk stays with a slow socket until the third is read (its buffer's next turn).
                if storage.count == 1 { held = chunk }
                if storage.count == 3 {
                    #expect(held.map { Array($0.readableBytesView) } == Array(bytes[100..<(100 + (1 << 20))]))
                    held = nil
                }
            }
            #expect(received == Array(bytes[100...]))
            #expect(storage.count == 6)
            // The held buffer was replaced, not overwritten; released ones are filled again in place.
            #expect(storage[2] != storage[0])
            #expect(storage[4] == storage[2])
            #expect(storage[3] == storage[1] && storage[5] == storage[3])
        }
    }

    @Test("AsyncHTTPClient file bodies: a file shorter than the range is fileCantRead")
    func fileRangeChunksShortFile() async throws {
        let bytes = patternBytes(3000, seed: 13)
        let url = try makeTemporaryFile(bytes)
        defer { try? FileManager.default.removeItem(at: url) }
        let code = await clientErrorCode {
            try await OSSFile.withFile(url.path, .read) { file in
                let chunks = AsyncHTTPClientTransport.FileRangeChunks(file: file, range: 0..<4000, chunkLength: 1024)
                for try await _ in chunks {}
            }
        }
        #expect(code == .fileCantRead)
    }

    @Test("AsyncHTTPClient makes no span of its own per request when no tracer is bootstrapped")
    func noRequestSpansWithoutATracer() async throws {
        // No test of this target bootstraps a tracer process-wide, so the global tracer is the no-op one here.
        #expect(InstrumentationSystem.tracer is NoOpTracer)
        let transport = AsyncHTTPClientTransport(configuration: OSSClientConfiguration())
        #expect(transport.client.tracer == nil)
        try await transport.shutdown()
    }

    @Test("AsyncHTTPClient spans each request only while a tracer is bootstrapped and the client's middleware makes no spans")
    func requestSpansOnlyWithoutTheClientsOwn() {
        let bootstrapped = InMemoryTracer()
        var plain = OSSClientConfiguration()
        #expect(AsyncHTTPClientTransport.requestTracer(plain, bootstrapped: bootstrapped) is InMemoryTracer)
        #expect(AsyncHTTPClientTransport.requestTracer(plain, bootstrapped: NoOpTracer()) == nil)
        var metricsOnly = plain
        metricsOnly.observe(OSSObservability(recordsSpans: false))
        #expect(AsyncHTTPClientTransport.requestTracer(metricsOnly, bootstrapped: bootstrapped) is InMemoryTracer)
        // The client's attempt span is the request's span: no second one from AsyncHTTPClient.
        plain.observe(OSSObservability())
        #expect(AsyncHTTPClientTransport.requestTracer(plain, bootstrapped: bootstrapped) == nil)
    }

    @Test("AsyncHTTPClient after shutdown(): a request is clientShutDown (transient: not retried, transfers keep their state), unsent; a second shutdown returns")
    func asyncHTTPClientAfterShutdown() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])) { server in
            let transport = AsyncHTTPClientTransport(configuration: testClientConfiguration())
            let client = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration(), transport: transport)
            try await client.shutdown()
            try await client.shutdown()
            await server.resetStats()
            let error = await thrownClientError {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            }
            #expect(error?.code == .clientShutDown, "\(String(describing: error))")
            #expect(error.map { OSSErrorDisposition($0) } == .transient)
            #expect(await server.stats().total.requests == 0)
        }
    }
}
#endif
