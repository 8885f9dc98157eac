@testable import AliyunOSS
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOConcurrencyHelpers
import OSSLocalServer
import Testing

/// The URLSession transport's run-time duties on every platform (also through FoundationNetworking here): a session
/// refused for security reasons is not retried, a transport that goes away releases its session, and a shutdown
/// means no more requests.
@Suite("URLSession transport: refusals and lifetime")
struct URLSessionLifecycleTests {
        /// What URLSession throws on Apple platforms when App Transport Security or TLS trust refuses a connection
    /// (FoundationNetworking reports handshake failures with an unknown code, so the refusal is thrown here as the
    /// system would throw it).
    struct RefusingTransport: OSSHTTPTransport {
        let code: URLError.Code
        let sends = NIOLockedValueBox(0)
        func send<Result: Sendable>(
            _ request: OSSHTTPRequest, handler: (OSSHTTPResponse) async throws -> Result
        ) async throws -> Result {
            sends.withLockedValue { $0 += 1 }
            throw URLError(code)
        }
        func shutdown() async throws {}
    }

    static let refusals: [URLError.Code] = [
        .appTransportSecurityRequiresSecureConnection, .secureConnectionFailed, .serverCertificateUntrusted,
        .serverCertificateHasBadDate, .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid,
        .clientCertificateRejected, .clientCertificateRequired,
    ]

    @Test("an App Transport Security or TLS trust refusal is connectionNotTrusted, sent once, never retried", arguments: refusals)
    func securityRefusalIsNotRetried(code: URLError.Code) async throws {
        var configuration = OSSClientConfiguration(region: "cn-hangzhou")
        configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
        let transport = RefusingTransport(code: code)
        let client = try OSSClient(
            endpoint: "http://127.0.0.1:9", credentialProvider: OSSStaticCredentialProvider(accessKeyId: "id", accessKeySecret: "secret"),
            configuration: configuration, transport: transport)
        let thrown = await clientErrorCode {
            _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
        }
        try await client.shutdown()
        #expect(thrown == .connectionNotTrusted)
        #expect(transport.sends.withLockedValue { $0 } == 1)
    }

    @Test("a transport dropped without shutdown() invalidates its session, which then lets its delegate go")
    func droppedTransportReleasesItsSession() async throws {
        // The system keeps a session with a delegate alive until it is invalidated (on Apple platforms the app
        // cannot even reach it any more): here the test keeps it, as the system would, and watches for the
        // invalidation, after which a session lets its delegate go.
        let session: URLSession
        do {
            let transport = OSSURLSessionTransport(configuration: OSSClientConfiguration())
            session = transport.session
            #expect(session.delegate != nil)
        }
        for _ in 0..<100 where session.delegate != nil {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(session.delegate == nil, "the session still holds its delegate: it was never invalidated")
    }

    /// Counts the requests handed to the URLSession transport underneath (how often the client tried).
    struct CountingTransport: OSSHTTPTransport {
        let base: OSSURLSessionTransport
        let sends = NIOLockedValueBox(0)
        func send<Result: Sendable>(
            _ request: OSSHTTPRequest, handler: (OSSHTTPResponse) async throws -> Result
        ) async throws -> Result {
            sends.withLockedValue { $0 += 1 }
            return try await base.send(request, handler: handler)
        }
        func shutdown() async throws { try await base.shutdown() }
    }

    @Test(
        "after shutdown() returns no request reaches the server: those in flight are cancelled, later ones fail unsent",
        .timeLimit(.minutes(1)))
    func shutdownEndsEveryRequest() async throws {
        let workers = 3
        let keysPerWorker = 4
        let held = LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 2_000))
        try await withServerAndClient(faults: [held], configure: { $0.transport = .urlSession }) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            await server.resetStats()
            // Workers that get keys one after another and go on after a failure, as a batch does: each has a GET
            // in flight when the client shuts down, and asks for more afterwards.
            let outcomes = Task {
                await withTaskGroup(of: [OSSClientError?].self) { group in
                    for _ in 0..<workers {
                        group.addTask {
                            var errors: [OSSClientError?] = []
                            for _ in 0..<keysPerWorker {
                                do {
                                    _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
                                    errors.append(nil)
                                } catch {
                                    errors.append(error as? OSSClientError)
                                }
                            }
                            return errors
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            // Every worker's first GET is at the server (counted there), held by the delay.
            let deadline = ContinuousClock.now + .seconds(20)
            while await server.stats()[.getObject].requests < workers, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            try #require(await server.stats()[.getObject].requests == Int64(workers))
            let transport = try #require((client.transport as? OSSStallDetectingTransport)?.base as? OSSURLSessionTransport)
            let inFlight = await withCheckedContinuation { (done: CheckedContinuation<[URLSessionTask], Never>) in
                transport.session.getAllTasks { done.resume(returning: $0) }
            }
            try #require(inFlight.count == workers)
            try await client.shutdown()
            // Returned, so every task has ended (its connection closed), not merely been told to cancel.
            #expect(
                inFlight.allSatisfy { $0.state == .completed },
                "tasks still ending after shutdown() returned: \(inFlight.map(\.state.rawValue))")
            let atShutdown = await server.stats().total.requests
            let errors = await outcomes.value
            // Past the delay, once every connection the server saw has ended, a request still on its way would have
            // been counted.
            try await Task.sleep(for: .milliseconds(2_500))
            #expect(await server.waitForConnectionsToEnd())
            #expect(atShutdown == Int64(workers))
            #expect(await server.stats().total.requests == atShutdown, "a request reached the server after shutdown()")
            for worker in errors {
                #expect(worker.first??.code == .taskCancelled, "the GET in flight: \(String(describing: worker.first))")
                for later in worker.dropFirst() {
                    #expect(later?.code == .clientShutDown && later?.message.contains("shut down") == true, "\(String(describing: later))")
                }
            }
        }
    }

    @Test("shutdown() returns when called again, and when called by several tasks at once", .timeLimit(.minutes(1)))
    func shutdownIsIdempotent() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])) { server in
            let transport = OSSURLSessionTransport(configuration: testClientConfiguration())
            let client = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration(), transport: transport)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            async let first: Void = client.shutdown()
            async let second: Void = transport.shutdown()
            _ = try await (first, second)
            try await client.shutdown()
        }
    }

    @Test("a request after shutdown() fails with the shut-down error, unsent", .timeLimit(.minutes(1)))
    func sendAfterShutdownFails() async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])) { server in
            let transport = CountingTransport(base: OSSURLSessionTransport(configuration: testClientConfiguration()))
            let client = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration(), transport: transport)
            try await client.shutdown()
            await server.resetStats()
            let error = await thrownClientError {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            }
            #expect(error?.code == .clientShutDown)
            #expect(error?.message.contains("shut down") == true, "\(String(describing: error))")
            // Transient: the pipeline does not wait out its backoff to send nothing again.
            #expect(transport.sends.withLockedValue { $0 } == 1)
            #expect(await server.stats().total.requests == 0)
            let direct = await thrownClientError {
                _ = try await transport.base.send(
                    OSSHTTPRequest(method: "GET", url: server.endpoint.absoluteString + "/bkt/k", headers: [:])) { $0.status }
            }
            #expect(direct?.code == .clientShutDown && direct?.message.contains("shut down") == true)
        }
    }

    #if canImport(FoundationNetworking)
    /// FoundationNetworking crashes the process when a file body's read completes after the exchange ended
    /// (`uploadTask(with:fromFile:)`: an un-pause of the finished curl handle with `try!`), so on Linux a file body
    /// goes out as a stream with its length. The local server refuses a request that is chunked and has a length
    /// (400), so the uploads below also show that the stream is sent with its Content-Length alone.
    @Test("on Linux a file body is streamed with its Content-Length, never given to uploadTask(fromFile:)", .timeLimit(.minutes(1)))
    func fileBodyIsStreamedOnLinux() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("oss-stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("body.bin")
        let bytes = Data((0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: file)
        let source = try await OSSURLSessionUploadSource.make(
            for: .fileRange(path: file.path, offset: 0, length: Int64(bytes.count)), inMemoryLimit: 1 << 20)
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:9/bkt/k")!)
        request.httpMethod = "PUT"
        let task = try #require(source).makeTask(in: session, with: request)
        #expect(!(task is URLSessionUploadTask), "a file given to uploadTask(fromFile:)")
        #expect(task.originalRequest?.httpBodyStream != nil)
        #expect(task.originalRequest?.value(forHTTPHeaderField: "Content-Length") == String(bytes.count))

        var configuration = testClientConfiguration()
        configuration.transport = .urlSession
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["bkt"])) { server in
            try await withClient(of: server, server.credentials.provider, configuration) { _, client in
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "whole.bin", fileURL: file))
                let back = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "whole.bin"))
                #expect(back.content == bytes)
            }
        }
    }
    #endif
}
