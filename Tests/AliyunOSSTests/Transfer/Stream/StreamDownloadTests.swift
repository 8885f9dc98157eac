@testable import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("downloadStream: an object as an AsyncSequence")
struct StreamDownloadTests {
    func put(_ client: OSSClient, _ key: String, _ bytes: [UInt8]) async throws -> String {
        let result = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(bytes)))
        return try #require(result.eTag)
    }

    @Test("the stream equals the object, its CRC-64 checked; the empty object is an empty stream", arguments: [
        0, 1, 1_000_000,
    ])
    func wholeObject(length: Int) async throws {
        let bytes = patternBytes(length, seed: 21)
        try await withServerAndClient { server, client in
            let eTag = try await put(client, "whole.bin", bytes)
            await server.resetStats()
            let stream = try await client.downloadStream(bucket: "bkt", key: "whole.bin")
            #expect(stream.eTag == eTag)
            #expect(stream.objectSize == Int64(length))
            #expect(stream.length == Int64(length))
            #expect(stream.crc64 == CRC64.checksum(bytes))
            let (received, error) = await drainStream(stream)
            #expect(error == nil)
            #expect(Data(received) == Data(bytes))
            #expect(await server.stats()[.getObject].requests == 1)
        }
    }

    @Test("a consumer that does not read: the producer stops at bufferSize bytes ahead")
    func slowConsumer() async throws {
        let bytes = patternBytes(2_000_000, seed: 22)
        let buffer = 64 * 1024
        try await withServerAndClient { _, client in
            _ = try await put(client, "slow.bin", bytes)
            let stream = try await client.downloadStream(
                OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "slow.bin", bufferSize: buffer))
            var received: [UInt8] = []
            var blocked = 0
            for try await chunk in stream {
                // Before each read, let the producer run until it has to wait for room (or the body ended).
                await stream.producerBlocked()
                if stream.bufferedBytes > buffer / 2 { blocked += 1 }
                #expect(stream.bufferedBytes <= buffer)
                received += chunk
            }
            #expect(Data(received) == Data(bytes))
            #expect(stream.peakBufferedBytes <= buffer)
            #expect(stream.peakBufferedBytes > buffer / 2)
            #expect(blocked > 1)
        }
    }

    @Test("progress counts the bytes handed to the consumer, against the stream's length")
    func progress() async throws {
        let bytes = patternBytes(300_000, seed: 23)
        let last = Box<(Int64, Int64)>((0, 0))
        try await withServerAndClient { _, client in
            _ = try await put(client, "progress.bin", bytes)
            let stream = try await client.downloadStream(
                OSSDownloadStreamRequest(
                    bucketName: "bkt", objectKey: "progress.bin", offset: 1000,
                    downloadProgress: { _, total, expected in last.update { $0 = (total, expected) } }))
            _ = await drainStream(stream)
        }
        #expect(last.value == (299_000, 299_000))
    }

    @Test("resumed from an offset with the ETag and the prefix's CRC-64: the rest, the whole CRC-64 checked")
    func resumeFromOffset() async throws {
        let bytes = patternBytes(500_000, seed: 24)
        let offset = 123_457
        try await withServerAndClient { server, client in
            let eTag = try await put(client, "resume.bin", bytes)
            await server.resetStats()
            let stream = try await client.downloadStream(
                OSSDownloadStreamRequest(
                    bucketName: "bkt", objectKey: "resume.bin", offset: Int64(offset), eTag: eTag,
                    prefixCRC64: CRC64.checksum(bytes[..<offset])))
            #expect(stream.offset == Int64(offset))
            #expect(stream.length == Int64(bytes.count - offset))
            let (received, error) = await drainStream(stream)
            #expect(error == nil)
            #expect(Data(received) == Data(bytes[offset...]))
            #expect(await server.stats()[.getObject].responseBodyBytesWritten == Int64(bytes.count - offset))

            // A wrong prefix CRC-64 is caught at the end: the whole object does not match.
            let wrong = try await client.downloadStream(
                OSSDownloadStreamRequest(
                    bucketName: "bkt", objectKey: "resume.bin", offset: Int64(offset), eTag: eTag, prefixCRC64: 1))
            let (rest, failure) = await drainStream(wrong)
            #expect(Data(rest) == Data(bytes[offset...]))
            #expect((failure as? OSSClientError)?.code == .invalidCRC)
        }
    }

    @Test("an offset at the end is an empty stream; past the end invalidArgument; a stale ETag objectChanged")
    func offsetsAndETags() async throws {
        let bytes = patternBytes(10_000, seed: 25)
        try await withServerAndClient { _, client in
            let eTag = try await put(client, "edges.bin", bytes)
            let atEnd = try await client.downloadStream(bucket: "bkt", key: "edges.bin", from: 10_000, eTag: eTag)
            #expect(atEnd.length == 0)
            let (none, error) = await drainStream(atEnd)
            #expect(none.isEmpty && error == nil)
            let past = await thrownClientError {
                _ = try await client.downloadStream(bucket: "bkt", key: "edges.bin", from: 10_001)
            }
            #expect(past?.code == .invalidArgument)
            let stale = await thrownClientError {
                _ = try await client.downloadStream(bucket: "bkt", key: "edges.bin", eTag: "\"0123456789ABCDEF\"")
            }
            #expect(stale?.code == .objectChanged)
            let missing = await serverError { _ = try await client.downloadStream(bucket: "bkt", key: "nope.bin") }
            #expect(missing?.statusCode == 404)
        }
    }

    @Test("connections reset mid-body: the rest is requested again (If-Match), the bytes are identical", arguments: [
        ["GetObject:nth=1:drop=150000"], ["GetObject:every=1:drop=70000:times=4"],
        ["GetObject:nth=1:drop=100000", "GetObject:nth=2:status=503"],
    ])
    func resetMidStream(rules: [String]) async throws {
        let bytes = patternBytes(600_000, seed: 26)
        try await withServerAndClient { server, client in
            _ = try await put(client, "reset.bin", bytes)
            await server.resetStats()
            for rule in rules { await server.addFault(try LocalOSSFaultRule(parsing: rule)) }
            let stream = try await client.downloadStream(
                OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "reset.bin", bufferSize: 100_000))
            let (received, error) = await drainStream(stream)
            #expect(error == nil)
            #expect(Data(received) == Data(bytes))
            let stats = await server.stats()
            #expect(stats.faultsInjected == Int64(rules.count == 1 && rules[0].contains("times=4") ? 4 : rules.count))
            #expect(stats[.getObject].requests == stats.faultsInjected + 1)
        }
    }

    @Test("the object replaced mid-stream: objectChanged at the next request, no byte of the new version")
    func replacedMidStream() async throws {
        let old = patternBytes(1_000_000, seed: 27)
        let new = patternBytes(1_000_000, seed: 28)
        let dropAt = 200_000
        try await withServerAndClient { server, client in
            _ = try await put(client, "replaced.bin", old)
            // The first GetObject breaks at dropAt: the stream must ask again for the rest.
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:drop=\(dropAt)"))
            let stream = try await client.downloadStream(
                OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "replaced.bin", bufferSize: 32 * 1024))
            var received: [UInt8] = []
            var replaced = false
            var failure: (any Error)?
            do {
                for try await chunk in stream {
                    received += chunk
                    // The producer cannot reach dropAt before the consumer read all but bufferSize of it.
                    if !replaced {
                        _ = try await put(client, "replaced.bin", new)
                        replaced = true
                    }
                }
            } catch {
                failure = error
            }
            #expect((failure as? OSSClientError)?.code == .objectChanged)
            // What arrived is a prefix of the old version (the server's drop may lose its last unsent bytes).
            #expect(received.count <= dropAt && received.count > 32 * 1024)
            #expect(Data(received) == Data(old[..<received.count]))
        }
    }

    @Test("a bit flipped in transit: every byte delivered, then invalidCRC instead of a normal end")
    func corruptedInTransit() async throws {
        let bytes = patternBytes(300_000, seed: 29)
        try await withServerAndClient { server, client in
            _ = try await put(client, "flipped.bin", bytes)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:corrupt=12345"))
            let stream = try await client.downloadStream(bucket: "bkt", key: "flipped.bin")
            let (received, error) = await drainStream(stream)
            #expect(received.count == bytes.count)
            #expect(received != bytes)
            #expect((error as? OSSClientError)?.code == .invalidCRC)
        }
    }

    @Test("the consumer cancelled while waiting: taskCancelled, the producer stopped")
    func consumerCancelled() async throws {
        let bytes = patternBytes(1_000_000, seed: 30)
        try await withServerAndClient { _, client in
            _ = try await put(client, "cancel.bin", bytes)
            let stream = try await client.downloadStream(
                OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "cancel.bin", bufferSize: 16 * 1024))
            let (started, signal) = AsyncStream<Void>.makeStream()
            let consumer = Task {
                var count = 0
                for try await chunk in stream {
                    count += chunk.count
                    signal.yield()
                    // Wait for cancellation: the next read then finds the task cancelled.
                    try? await Task.sleep(for: .seconds(600))
                }
                return count
            }
            for await _ in started { break }
            consumer.cancel()
            let error = await thrownClientError { _ = try await consumer.value }
            #expect(error?.code == .taskCancelled)
            #expect(stream.peakBufferedBytes <= 16 * 1024)
        }
    }

    @Test("a stream iterates once")
    func iteratesOnce() async throws {
        try await withServerAndClient { _, client in
            _ = try await put(client, "once.bin", patternBytes(10))
            let stream = try await client.downloadStream(bucket: "bkt", key: "once.bin")
            _ = await drainStream(stream)
            let (_, error) = await drainStream(stream)
            #expect((error as? OSSClientError)?.code == .invalidArgument)
        }
    }

    @Test("the remaining range failing every time: the bytes before the failure, then the server's error")
    func resumeGivesUp() async throws {
        let bytes = patternBytes(400_000, seed: 31)
        try await withServerAndClient { server, client in
            _ = try await put(client, "gives-up.bin", bytes)
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:nth=1:drop=100000"))
            await server.resetStats()
            var request = OSSDownloadStreamRequest(bucketName: "bkt", objectKey: "gives-up.bin", bufferSize: 16 * 1024)
            request.maxResumeAttempts = 1
            let stream = try await client.downloadStream(request)
            // Every request after the first fails; the stream needs another only once the consumer read the rest
            // of the first but bufferSize (it has not started yet).
            await server.addFault(try LocalOSSFaultRule(parsing: "GetObject:always:status=503"))
            let (received, error) = await drainStream(stream)
            #expect((error as? OSSServerError)?.statusCode == 503)
            #expect(received.count <= 100_000)
            #expect(Data(received) == Data(bytes[..<received.count]))
            // The first GetObject, then one resume of four attempts (the client's three retries).
            #expect(await server.stats()[.getObject].requests == 5)
        }
    }
}
