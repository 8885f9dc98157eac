@testable import AliyunOSS
import Foundation
import NIOCore
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Stall detection (`timeouts.stall`): a request whose bytes stop moving is abandoned and retried on a fresh
/// connection, on both transports. The server's `stall=N` fault stops moving bytes after N body bytes and holds the
/// connection open and silent; `blackhole` takes the request and never answers.
@Suite("Stall detection: stalled and black-holed connections are abandoned and retried")
struct StallDetectionTests {
    static let transports = TransportConformanceTests.transports
    static let size = 16 << 20
    static let partSize: Int64 = 1 << 20

    static func configure(_ transport: OSSTransportKind) -> (inout OSSClientConfiguration) -> Void {
        { configuration in
            configuration.transport = transport
            configuration.timeouts.stall = .seconds(1)
        }
    }

    @Test("a resumable upload through stalled and black-holed part uploads is byte-identical", arguments: transports)
    func uploadThroughStalls(transport: OSSTransportKind) async throws {
        let bytes = patternBytes(Self.size, seed: 31)
        let file = try makeTemporaryFile(bytes)
        let records = try temporaryURL()
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: records)
        }
        let faults = [
            try LocalOSSFaultRule(parsing: "UploadPart:every=5:stall=200000"),
            try LocalOSSFaultRule(parsing: "UploadPart:every=7:blackhole"),
        ]
        try await withServerAndClient(faults: faults, configure: Self.configure(transport)) { server, client in
            let result = try await client.resumableUpload(OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "stalled-up", uploadingFileURL: file, partSize: Self.partSize,
                threadNum: 3, recordDirectoryPath: records.path))
            #expect(result.crc64 == CRC64.checksum(bytes))
            let stats = await server.stats()
            #expect(stats.faultsInjected > 0)
            #expect(stats[.uploadPart].requests > 16, "every stalled part is sent again")
            let back = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "stalled-up"))
            #expect(back.content == Data(bytes))
        }
    }

    @Test("a resumable download through stalled and black-holed ranges is byte-identical", arguments: transports)
    func downloadThroughStalls(transport: OSSTransportKind) async throws {
        let bytes = patternBytes(Self.size, seed: 32)
        let destination = try temporaryURL()
        let records = try temporaryURL()
        defer {
            try? FileManager.default.removeItem(at: destination)
            try? FileManager.default.removeItem(at: records)
        }
        try await withServerAndClient(configure: Self.configure(transport)) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "stalled-down", data: Data(bytes)))
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:every=5:stall=100000"))
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:every=7:blackhole"))
            let result = try await client.resumableDownload(OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "stalled-down", downloadToFileURL: destination, partSize: Self.partSize,
                threadNum: 3, recordDirectoryPath: records.path))
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try Data(contentsOf: destination) == Data(bytes))
            let stats = await server.stats()
            #expect(stats.faultsInjected > 0)
            #expect(stats[.getObject].requests > 16, "every stalled range is fetched again")
        }
    }

    @Test("with no retries left, a stall is a network error that says so", arguments: transports)
    func stallIsANetworkError(transport: OSSTransportKind) async throws {
        try await withServerAndClient(configure: Self.configure(transport)) { server, client in
            _ = try await client.putObject(
                OSSPutObjectRequest(bucketName: "bkt", objectKey: "held", data: Data(patternBytes(1 << 20, seed: 3))))
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:always:stall=1000"))
            let error = try await clientErrorWithVariant(of: client, server: server, { $0.retry.maxRetryCount = 0 }) {
                _ = try await $0.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "held"))
            }
            #expect(error?.code == .networkError)
            #expect(error?.message.contains("stalled") == true, "\(String(describing: error))")
        }
    }

    @Test("a caller that reads the body slowly is not a stall", arguments: transports)
    func slowConsumerIsNotAStall(transport: OSSTransportKind) async throws {
        let bytes = patternBytes(6 << 20, seed: 33)
        try await withServerAndClient(configure: {
            $0.transport = transport
            $0.timeouts.stall = .seconds(1)
            $0.retry.maxRetryCount = 0
        }) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "slow-reader", data: Data(bytes)))
            await server.resetStats()
            let received = try await client.withObjectStream(OSSGetObjectRequest(bucketName: "bkt", objectKey: "slow-reader")) {
                _, body in
                var crc = CRC64()
                var chunks = 0
                for try await chunk in body {
                    chunk.withUnsafeBytes { crc.update($0) }
                    chunks += 1
                    // Well past the stall timeout, twice, with the buffer full behind the reader.
                    if chunks == 1 || chunks == 40 { try await Task.sleep(for: .milliseconds(2500)) }
                }
                return crc.value
            }
            #expect(received == CRC64.checksum(bytes))
            #expect(await server.stats()[.getObject].requests == 1)
        }
    }

    /// The platform's transport, counting the response bytes the stall detector has taken from it.
    struct PullCountingTransport: OSSHTTPTransport {
        let base: any OSSHTTPTransport
        let pulled = Box(0)

        func send<Result: Sendable>(
            _ request: OSSHTTPRequest, handler: (OSSHTTPResponse) async throws -> Result
        ) async throws -> Result {
            let pulled = self.pulled
            return try await base.send(request) { response in
                var response = response
                response.body = response.body.counting { count in pulled.update { $0 += count } }
                return try await handler(response)
            }
        }

        func shutdown() async throws { try await base.shutdown() }
    }

    @Test("the stall detector reads at most its buffer ahead of a caller that reads slowly", arguments: transports)
    func readAheadIsBounded(transport: OSSTransportKind) async throws {
        let bytes = patternBytes(4 << 20, seed: 41)
        try await withServerAndClient(configure: { $0.transport = transport }) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "ahead", data: Data(bytes)))
            let counter = PullCountingTransport(base: transport.makeTransport(configuration: client.configuration))
            let reader = try OSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: client.configuration, transport: counter)
            let operation = try OSSClient.getOperation(OSSGetObjectRequest(bucketName: "bkt", objectKey: "ahead"))
            let read = { try await reader.invoke(operation) { response in
                var crc = CRC64()
                var consumed = 0
                var ahead = 0
                var largest = 0
                for try await chunk in response.body {
                    // Taken from the transport but not yet by this reader: the buffer, the chunk in hand, the one
                    // the pump holds while it waits for room.
                    ahead = max(ahead, counter.pulled.value - consumed)
                    largest = max(largest, chunk.count)
                    chunk.withUnsafeBytes { crc.update($0) }
                    consumed += chunk.count
                    try await Task.sleep(for: .milliseconds(1))  // the network outruns this reader
                }
                return (crc.value, ahead, largest)
            } }
            let measured: (UInt64, Int, Int)
            do {
                measured = try await read()
            } catch {
                try? await reader.shutdown()
                throw error
            }
            try await reader.shutdown()
            let (crc, ahead, largest) = measured
            #expect(crc == CRC64.checksum(bytes))
            #expect(ahead <= OSSStallDetectingTransport.bufferLimit + 2 * largest, "\(ahead) bytes ahead, chunks up to \(largest)")
            #expect(OSSStallDetectingTransport.bufferLimit == 256 << 10)
        }
    }

    @Test("stall=, blackhole: fault rules parse and print back")
    func faultRulesRoundTrip() throws {
        for text in ["UploadPart:every=5:stall=200000", "GetObject:nth=2:blackhole", "*:random=0.25:seed=4:stall=0"] {
            let rule = try LocalOSSFaultRule(parsing: text)
            #expect(try LocalOSSFaultRule(parsing: rule.description) == rule)
        }
        #expect(throws: LocalOSSFaultRuleError.self) { try LocalOSSFaultRule(parsing: "GetObject:blackhole=3") }
        #expect(throws: LocalOSSFaultRuleError.self) { try LocalOSSFaultRule(parsing: "GetObject:stall=-1") }
    }
}
