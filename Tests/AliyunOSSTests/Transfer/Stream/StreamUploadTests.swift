@testable import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("uploadStream: streams of unknown length")
struct StreamUploadTests {
    static let part = OSSStreamUploadOptions.minimumPartSize

    @Test(
        "lengths around one part: at most one part is one PutObject, more is multipart; bytes and CRC-64 identical",
        arguments: [0, 1, part - 1, part, part + 1])
    func lengths(length: Int) async throws {
        let bytes = patternBytes(length, seed: UInt64(length) + 1)
        try await withServerAndClient { server, client in
            await server.resetStats()
            let result = try await client.uploadStream(
                ChunkedBytes(bytes: bytes, chunkSize: 30_000), bucket: "bkt", key: "len-\(length)",
                options: OSSStreamUploadOptions(partSize: Self.part))
            #expect(try await objectBytes(client, "len-\(length)") == bytes)
            #expect(result.totalBytes == Int64(length))
            #expect(result.crc64 == CRC64.checksum(bytes))
            let stats = await server.stats()
            if length <= Self.part {
                #expect(result.partCount == 0)
                #expect(stats[.putObject].requests == 1)
                #expect(stats[.initiateMultipartUpload].requests == 0)
            } else {
                #expect(result.partCount == 2)
                #expect(stats[.uploadPart].requests == 2)
                #expect(stats[.completeMultipartUpload].requests == 1)
            }
        }
    }

    @Test("a stream's parts go through the client's scheduler: its part limit, and each part's whole length charged")
    func scheduled() async throws {
        let length = 5 * Self.part + 999
        let bytes = patternBytes(length, seed: 5)
        try await withServerAndClient(configure: {
            $0.transferLimits = OSSTransferLimits(transfers: 1, partsInFlight: 2, memoryBudget: 64 << 20)
        }) { _, client in
            let result = try await client.uploadStream(
                ChunkedBytes(bytes: bytes, chunkSize: 50_000), bucket: "bkt", key: "scheduled.bin",
                options: OSSStreamUploadOptions(partSize: Self.part, concurrency: 4))
            #expect(result.partCount == 6)
            #expect(try await objectBytes(client, "scheduled.bin") == bytes)
            let snapshot = client.scheduler.snapshot
            #expect(snapshot.peakRunningTransfers == 1)
            #expect(snapshot.peakPartsInFlight == 2)
            #expect(snapshot.peakBufferedBytes == Int64(2 * Self.part))
            #expect(snapshot.runningTransfers == 0 && snapshot.bufferedBytes == 0)
        }
    }

    @Test("the part size doubles every K parts: 7 parts of 100, 100, 200, 200, 400, 400 KiB and the rest")
    func growth() async throws {
        var options = OSSStreamUploadOptions(partSize: Self.part, concurrency: 3)
        options.partsPerDoubling = 2
        let sizes = (1...7).map { options.partSize(ofPart: $0) }
        #expect(sizes == [1, 1, 2, 2, 4, 4, 8].map { $0 * Self.part })
        let length = 14 * Self.part + 12_345  // six full parts (1 + 1 + 2 + 2 + 4 + 4 units) and a short seventh
        let bytes = patternBytes(length, seed: 77)
        try await withServerAndClient { server, client in
            await server.resetStats()
            let result = try await client.uploadStream(
                ChunkedBytes(bytes: bytes, chunkSize: 7_919), bucket: "bkt", key: "growth.bin", options: options)
            #expect(result.partCount == 7)
            #expect(await server.stats()[.uploadPart].requests == 7)
            #expect(Data(try await objectBytes(client, "growth.bin")) == Data(bytes))
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try await uploadsInProgress(client).isEmpty)
        }
    }

    @Test("the public schedule: 1000 parts per doubling, capped at 5 GiB, 10,000 parts hold partSize × 1,023,000")
    func schedule() {
        let options = OSSStreamUploadOptions()
        #expect(options.partSize(ofPart: 1) == 8 << 20)
        #expect(options.partSize(ofPart: 1000) == 8 << 20)
        #expect(options.partSize(ofPart: 1001) == 16 << 20)
        #expect(options.partSize(ofPart: 10_000) == 4 << 30)
        #expect(options.maximumLength == Int64(8 << 20) * 1_023_000)
        let large = OSSStreamUploadOptions(partSize: 1 << 30)
        #expect(large.partSize(ofPart: 1001) == 2 << 30)
        #expect(large.partSize(ofPart: 2001) == 4 << 30)
        #expect(large.partSize(ofPart: 3001) == OSSStreamUploadOptions.maximumPartSize)
        #expect(large.partSize(ofPart: 10_000) == OSSStreamUploadOptions.maximumPartSize)
    }

    @Test("invalid options are refused before anything is sent")
    func invalidOptions() async throws {
        try await withServerAndClient { _, client in
            for options in [
                OSSStreamUploadOptions(partSize: Self.part - 1), OSSStreamUploadOptions(concurrency: 0),
            ] {
                let error = await thrownClientError {
                    _ = try await client.uploadStream(
                        ChunkedBytes(bytes: [1], chunkSize: 1), bucket: "bkt", key: "x", options: options)
                }
                #expect(error?.code == .invalidArgument)
            }
        }
    }

    @Test("the source never runs ahead of the bytes sent by more than (concurrency + 1) parts")
    func boundedReadAhead() async throws {
        let bytes = patternBytes(12 * Self.part + 500, seed: 5)
        let sent = Box<Int64>(0)
        let worst = Box<Int64>(0)
        var options = OSSStreamUploadOptions(partSize: Self.part, concurrency: 2)
        options.uploadProgress = { _, total, _ in sent.update { $0 = max($0, total) } }
        var source = ChunkedBytes(bytes: bytes, chunkSize: 10_000)
        source.onPull = { pulled in
            let ahead = Int64(pulled) - sent.value
            worst.update { $0 = max($0, ahead) }
        }
        try await withServerAndClient { _, client in
            let result = try await client.uploadStream(source, bucket: "bkt", key: "bounded.bin", options: options)
            #expect(result.partCount == 13)
            #expect(Data(try await objectBytes(client, "bounded.bin")) == Data(bytes))
        }
        #expect(sent.value == Int64(bytes.count))
        #expect(worst.value <= Int64(3 * Self.part + 10_000))
    }

    @Test("each part takes its slot before its bytes are read: with partsInFlight 1 the source runs one part ahead")
    func readAheadWithinTheScheduler() async throws {
        let bytes = patternBytes(6 * Self.part + 500, seed: 15)
        let sent = Box<Int64>(0)
        let worst = Box<Int64>(0)
        var options = OSSStreamUploadOptions(partSize: Self.part, concurrency: 4)
        options.uploadProgress = { _, total, _ in sent.update { $0 = max($0, total) } }
        var source = ChunkedBytes(bytes: bytes, chunkSize: 10_000)
        source.onPull = { pulled in
            let ahead = Int64(pulled) - sent.value
            worst.update { $0 = max($0, ahead) }
        }
        try await withServerAndClient(configure: {
            $0.transferLimits = OSSTransferLimits(transfers: 1, partsInFlight: 1, memoryBudget: 64 << 20)
        }) { _, client in
            let result = try await client.uploadStream(source, bucket: "bkt", key: "one-ahead.bin", options: options)
            #expect(result.partCount == 7)
            #expect(Data(try await objectBytes(client, "one-ahead.bin")) == Data(bytes))
            let snapshot = client.scheduler.snapshot
            #expect(snapshot.peakPartsInFlight == 1)
            #expect(snapshot.peakBufferedBytes == Int64(Self.part))
            #expect(snapshot.partsInFlight == 0 && snapshot.bufferedBytes == 0)
        }
        #expect(sent.value == Int64(bytes.count))
        // Without the slot taken first, four parts would be read while one is sent.
        #expect(worst.value <= Int64(Self.part + 10_000))
    }

    @Test("progress reports every byte once, in order, with an unknown total")
    func progress() async throws {
        let bytes = patternBytes(3 * Self.part + 1, seed: 9)
        let reports = Box<[(Int64, Int64, Int64)]>([])
        var options = OSSStreamUploadOptions(partSize: Self.part)
        options.uploadProgress = { step, total, expected in reports.update { $0.append((step, total, expected)) } }
        try await withServerAndClient(faults: [try LocalOSSFaultRule(parsing: "UploadPart:nth=2:drop=50000")]) {
            _, client in
            _ = try await client.uploadStream(
                ChunkedBytes(bytes: bytes, chunkSize: 65_536), bucket: "bkt", key: "progress.bin", options: options)
        }
        let seen = reports.value
        #expect(seen.last?.1 == Int64(bytes.count))
        #expect(seen.allSatisfy { $0.2 == -1 && $0.0 > 0 })
        #expect(seen.map(\.0).reduce(0, +) == Int64(bytes.count))
        #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.1 < $1.1 })
    }

    @Test("metadata, content type and headers reach the object, by PutObject and by multipart", arguments: [10, part + 10])
    func metadata(length: Int) async throws {
        let options = OSSStreamUploadOptions(
            partSize: Self.part, contentType: "text/x-stream", metadata: ["color": "blue"],
            headers: ["Cache-Control": "no-cache"])
        try await withServerAndClient { _, client in
            _ = try await client.uploadStream(
                ChunkedBytes(bytes: patternBytes(length), chunkSize: 4096), bucket: "bkt", key: "meta.bin",
                options: options)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "meta.bin"))
            #expect(head.contentType == "text/x-stream")
            #expect(head.metadata["color"] == "blue")
            #expect(head.headers["cache-control"] == "no-cache")
            #expect(head.contentLength == Int64(length))
        }
    }

    @Test("a sequence of single bytes is batched")
    func singleBytes() async throws {
        let bytes = patternBytes(Self.part + 4_321, seed: 3)
        try await withServerAndClient { _, client in
            let result = try await client.uploadStream(
                SingleBytes(bytes: bytes), bucket: "bkt", key: "single.bin",
                options: OSSStreamUploadOptions(partSize: Self.part))
            #expect(result.partCount == 2)
            #expect(Data(try await objectBytes(client, "single.bin")) == Data(bytes))
        }
    }

    @Test("a part damaged in transit: invalidCRC, the upload aborted, no object", arguments: [
        "UploadPart:nth=2:corrupt=777", "PutObject:nth=1:corrupt=5",
    ])
    func damagedInTransit(rule: String) async throws {
        let length = rule.hasPrefix("PutObject") ? 5_000 : 4 * Self.part
        try await withServerAndClient { server, client in
            await server.addFault(try LocalOSSFaultRule(parsing: rule))
            let error = await thrownClientError {
                _ = try await client.uploadStream(
                    ChunkedBytes(bytes: patternBytes(length), chunkSize: 50_000), bucket: "bkt", key: "damaged.bin",
                    options: OSSStreamUploadOptions(partSize: Self.part))
            }
            #expect(error?.code == .invalidCRC)
            #expect(await server.stats().faultsInjected == 1)
            #expect(try await uploadsInProgress(client).isEmpty)
            if rule.hasPrefix("UploadPart") {
                let missing = await serverError {
                    _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "damaged.bin"))
                }
                #expect(missing?.statusCode == 404)
            }
        }
    }

    @Test("cancellation: taskCancelled, the parts in flight stopped, the multipart upload aborted")
    func cancellationAborts() async throws {
        let (blocked, signal) = AsyncStream<Void>.makeStream()
        var source = ChunkedBytes(bytes: patternBytes(3 * Self.part, seed: 8), chunkSize: Self.part)
        source.stop = .waitForCancellation
        source.onBlocked = { signal.yield() }
        let blocking = source
        try await withServerAndClient { server, client in
            let upload = Task {
                try await client.uploadStream(
                    blocking, bucket: "bkt", key: "cancelled.bin", options: OSSStreamUploadOptions(partSize: Self.part))
            }
            for await _ in blocked { break }
            // The source is read only after the upload was initiated: one upload is in progress now.
            let started = try await uploadsInProgress(client)
            #expect(started.count == 1)
            upload.cancel()
            let error = await thrownClientError { _ = try await upload.value }
            #expect(error?.code == .taskCancelled)
            let left = try await uploadsInProgress(client)
            #expect(left.isEmpty)
            #expect(await server.stats()[.abortMultipartUpload].requests == 1)
        }
    }

    @Test("the source failing: fileCantRead with its error underlying, the upload aborted")
    func sourceFailure() async throws {
        var source = ChunkedBytes(bytes: patternBytes(4 * Self.part, seed: 6), chunkSize: 60_000)
        source.stopAfter = 2 * Self.part + 1
        source.stop = .fail
        try await withServerAndClient { _, client in
            let error = await thrownClientError {
                _ = try await client.uploadStream(
                    source, bucket: "bkt", key: "failing.bin", options: OSSStreamUploadOptions(partSize: Self.part))
            }
            #expect(error?.code == .fileCantRead)
            #expect(error?.underlying is ChunkedBytes.SourceFailure)
            let left = try await uploadsInProgress(client)
            #expect(left.isEmpty)
        }
    }

    @Test("a part failing after its retries (persistent 503): the server's error, the upload aborted")
    func partFailure() async throws {
        try await withServerAndClient { server, client in
            await server.addFault(try LocalOSSFaultRule(parsing: "UploadPart:always:status=503"))
            let error = await serverError {
                _ = try await client.uploadStream(
                    ChunkedBytes(bytes: patternBytes(3 * Self.part), chunkSize: 50_000), bucket: "bkt",
                    key: "503.bin", options: OSSStreamUploadOptions(partSize: Self.part))
            }
            #expect(error?.statusCode == 503)
            await server.clearFaults()
            #expect(try await uploadsInProgress(client).isEmpty)
        }
    }

    @Test("a stream longer than the schedule's parts can hold: invalidArgument, the upload aborted")
    func tooLong() async throws {
        var options = OSSStreamUploadOptions(partSize: Self.part)
        options.partLimit = 3
        #expect(options.maximumLength == Int64(3 * Self.part))
        try await withServerAndClient { _, client in
            let error = await thrownClientError {
                _ = try await client.uploadStream(
                    ChunkedBytes(bytes: patternBytes(3 * Self.part + 1), chunkSize: 40_000), bucket: "bkt",
                    key: "long.bin", options: options)
            }
            #expect(error?.code == .invalidArgument)
            let left = try await uploadsInProgress(client)
            #expect(left.isEmpty)
        }
    }

    @Test("the completion's answer lost, its retry finding the upload gone: the object (size and CRC-64) is taken")
    func lostCompletionAnswer() async throws {
        let bytes = patternBytes(2 * Self.part + 99, seed: 14)
        try await withServerAndClient { server, client in
            await server.addFault(try LocalOSSFaultRule(parsing: "CompleteMultipartUpload:nth=1:dropreply"))
            let result = try await client.uploadStream(
                ChunkedBytes(bytes: bytes, chunkSize: 50_000), bucket: "bkt", key: "lost.bin",
                options: OSSStreamUploadOptions(partSize: Self.part))
            #expect(await server.stats()[.completeMultipartUpload].requests == 2)
            #expect(result.partCount == 3)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(Data(try await objectBytes(client, "lost.bin")) == Data(bytes))
        }
    }
}
