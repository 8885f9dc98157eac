import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@testable import AliyunOSS

@Suite("List batches: files, Data and streams to given keys, keys into a directory, with the batch's journal and resume")
struct ListBatchTests {
    /// A stream of `bytes` in chunks of `chunk` bytes; `made` counts the streams made.
    static func stream(_ bytes: [UInt8], chunk: Int = 50_000, made: OSSLockedValue<Int>? = nil)
        -> @Sendable () async throws -> AsyncThrowingStream<Data, any Error>
    {
        { () async throws -> AsyncThrowingStream<Data, any Error> in
            made?.withLockedValue { $0 += 1 }
            return AsyncThrowingStream { continuation in
                var offset = 0
                while offset < bytes.count {
                    continuation.yield(Data(bytes[offset..<min(bytes.count, offset + chunk)]))
                    offset += chunk
                }
                continuation.finish()
            }
        }
    }

    static func object(_ client: OSSClient, _ key: String) async throws -> [UInt8] {
        let result = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
        return [UInt8](result.content ?? Data())
    }

    /// A manager over `records` and the list upload of `items` it started, `filesAtOnce` items at a time.
    static func start(
        _ items: [OSSBatchUploadItem], client: OSSClient, records: String, filesAtOnce: Int
    ) async throws -> (OSSTransferManager, OSSBatch) {
        var options = batchOptions()
        options.filesAtOnce = filesAtOnce
        let manager = OSSTransferManager(client: client, recordDirectoryPath: records)
        return (manager, try await manager.uploadBatch(items, toBucket: "bkt", options: options))
    }

    @Test("files, Data and streams go to their keys with their own content types and metadata; progress and report count them all")
    func uploadsFilesDataAndStreams() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let small = patternBytes(3000, seed: 1)
        let big = patternBytes(450_000, seed: 2)  // over the threshold: a resumable multipart upload
        let data = patternBytes(7000, seed: 3)
        let unknown = patternBytes(260_000, seed: 4)  // longer than a part: the stream goes as multipart
        let sized = patternBytes(90_000, seed: 5)
        let items = [
            OSSBatchUploadItem(
                file: try scratch.write("IMG_0001.HEIC", small), key: "album/one.heic", contentType: "image/heic",
                metadata: ["camera": "x1"]),
            OSSBatchUploadItem(file: try scratch.write("movie.mov", big), key: "album/movie.mov"),
            OSSBatchUploadItem(data: Data(data), key: "album/thumb.jpg", contentType: "image/jpeg"),
            OSSBatchUploadItem(key: "album/live.bin", source: .stream(expectedSize: nil, make: Self.stream(unknown))),
            OSSBatchUploadItem(key: "album/sized.bin", source: .stream(expectedSize: Int64(sized.count), make: Self.stream(sized))),
        ]
        try await withServerAndClient { server, client in
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let batch = try await manager.uploadBatch(items, toBucket: "bkt", options: batchOptions())
            #expect(batch.request.list?.uploads.map(\.key) == [
                "album/live.bin", "album/movie.mov", "album/one.heic", "album/sized.bin", "album/thumb.jpg",
            ])
            let events = batch.events
            let collected = Task {
                var items: [OSSBatchItem] = []
                var last: OSSBatchProgress?
                for await event in events {
                    if case .item(let item) = event { items.append(item) }
                    if case .progress(let progress) = event { last = progress }
                }
                return (items, last)
            }
            let report = try await batch.result()
            let (ended, progress) = await collected.value
            let total = Int64(small.count + big.count + data.count + unknown.count + sized.count)
            #expect(report.state == .completed)
            #expect(report.counts.uploaded == 5)
            #expect(report.problems.isEmpty)
            #expect(report.bytesTransferred == total)
            #expect(ended.map(\.key).sorted() == items.map(\.key).sorted())
            #expect(ended.allSatisfy { $0.outcome == .uploaded })
            #expect(progress?.filesDone == 5)
            #expect(progress?.filesTotal == 5)
            #expect(progress?.bytesDone == total)
            #expect(progress?.bytesTotal == total)
            #expect(progress?.totalsAreFinal == true)

            #expect(try await Self.object(client, "album/one.heic") == small)
            #expect(try await Self.object(client, "album/movie.mov") == big)
            #expect(try await Self.object(client, "album/thumb.jpg") == data)
            #expect(try await Self.object(client, "album/live.bin") == unknown)
            #expect(try await Self.object(client, "album/sized.bin") == sized)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "album/one.heic"))
            #expect(head.contentType == "image/heic")
            #expect(head.metadata["camera"] == "x1")
            let thumb = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "album/thumb.jpg"))
            #expect(thumb.contentType == "image/jpeg")
            #expect(await server.stats()[.uploadPart].requests >= 5, "the large file and the long stream go as multipart")
            // A completed batch leaves nothing behind.
            #expect(try await manager.batches().isEmpty)
        }
    }

    @Test("paused midway and resumed: only the unfinished items are sent again, the Data items from this process's sources")
    func resumeSendsOnlyUnfinishedItems() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        var items: [OSSBatchUploadItem] = []
        var expected: [String: [UInt8]] = [:]
        for index in 0..<16 {
            let bytes = patternBytes(2000 + index, seed: UInt64(index + 10))
            let key = String(format: "p/%02d", index)
            expected[key] = bytes
            if index % 2 == 0 {
                items.append(OSSBatchUploadItem(file: try scratch.write("f\(index)", bytes), key: key))
            } else {
                items.append(OSSBatchUploadItem(data: Data(bytes), key: key))
            }
        }
        try await withServerAndClient(faults: [LocalOSSFaultRule(operation: .putObject, action: .delay(milliseconds: 80))]) {
            server, client in
            let (manager, batch) = try await Self.start(items, client: client, records: scratch.records, filesAtOnce: 2)
            let firstItems = batchItems(batch)
            try await BatchResumeTests.wait { await server.stats()[.putObject].requests >= 6 }
            batch.pause()
            #expect(await thrownClientError { _ = try await batch.result() }?.code == .taskPaused)
            let uploadedFirst = Set(await firstItems.value.filter { $0.outcome == .uploaded }.map(\.key))
            #expect(uploadedFirst.count >= 4)
            #expect(uploadedFirst.count < items.count)
            let info = try await manager.batchInfo(batch.id)
            #expect(info.state == .paused)
            #expect(info.counts.uploaded == uploadedFirst.count)
            #expect(info.request.list?.uploads.filter { $0.kind == .data }.count == 8)
            _ = try await settledRequests(server, .putObject)
            await server.clearFaults()
            await server.resetStats()

            let resumed = try await manager.resumeBatch(batch.id)
            let secondItems = batchItems(resumed)
            let report = try await resumed.result()
            #expect(report.state == .completed)
            #expect(report.counts.doneInEarlierRuns == uploadedFirst.count)
            let uploadedSecond = Set(await secondItems.value.filter { $0.outcome == .uploaded }.map(\.key))
            #expect(uploadedFirst.isDisjoint(with: uploadedSecond), "finished items were sent again")
            #expect(uploadedFirst.union(uploadedSecond) == Set(expected.keys))
            // At most one request per unfinished item (a file the paused run had stored is found by a HEAD).
            let puts = await server.stats()[.putObject].requests
            #expect(puts <= Int64(items.count - uploadedFirst.count))
            #expect(puts >= Int64(items.count - uploadedFirst.count - 2))
            for (key, bytes) in expected { #expect(try await Self.object(client, key) == bytes, "\(key)") }
        }
    }

    @Test("after a restart a Data or stream item needs its source: failed with batchSourceNeeded, then sent once given back")
    func inMemoryItemsAfterRestart() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let fileBytes = patternBytes(5000, seed: 31)
        let dataBytes = patternBytes(6000, seed: 32)
        let streamBytes = patternBytes(150_000, seed: 33)
        let items = [
            OSSBatchUploadItem(file: try scratch.write("a.bin", fileBytes), key: "r/a.bin"),
            OSSBatchUploadItem(data: Data(dataBytes), key: "r/z-data.bin", metadata: ["origin": "memory"]),
            OSSBatchUploadItem(key: "r/z-stream.bin", source: .stream(expectedSize: nil, make: Self.stream(streamBytes))),
        ]
        try await withServerAndClient(faults: [LocalOSSFaultRule(operation: .putObject, action: .delay(milliseconds: 400))]) {
            server, client in
            let (manager, batch) = try await Self.start(items, client: client, records: scratch.records, filesAtOnce: 1)
            // Stopped before the in-memory items (last in key order) start; the process "ends" with the manager.
            try await BatchResumeTests.wait { await server.stats()[.putObject].requests >= 1 }
            batch.pause()
            _ = try? await batch.result()
            _ = try await settledRequests(server, .putObject)
            await server.clearFaults()
            await server.resetStats()

            try await withClient(of: server, server.credentials.provider, client.configuration) { _, second in
                let relaunched = OSSTransferManager(client: second, recordDirectoryPath: scratch.records)
                let listed = try await relaunched.batches()
                #expect(listed.map(\.id) == [batch.id])
                let described = try #require(listed.first?.request.list?.uploads)
                #expect(described.map(\.kind) == [.file, .data, .stream])
                #expect(described[1].size == Int64(dataBytes.count))
                #expect(described[1].metadata == ["origin": "memory"])

                // Without sources: the file goes, the in-memory items fail with a typed reason, the batch is kept.
                let first = try await relaunched.resumeBatch(batch.id)
                let report = try await first.result()
                #expect(report.state == .completedWithFailures)
                #expect(report.counts.failed == 2)
                #expect(Set(report.problems.map(\.key)) == ["r/z-data.bin", "r/z-stream.bin"])
                for problem in report.problems {
                    guard case .failed(let failure) = problem.outcome else {
                        Issue.record("\(problem.key) was \(problem.outcome)")
                        continue
                    }
                    #expect(failure.clientErrorCode == .batchSourceNeeded)
                }
                #expect(try await Self.object(second, "r/a.bin") == fileBytes)
                #expect(try await relaunched.batchInfo(batch.id).state == .completedWithFailures)
                await server.resetStats()

                // With sources: only those two are sent; the file is not.
                let asked = OSSLockedValue<[String]>([])
                let made = OSSLockedValue(0)
                let again = try await relaunched.resumeBatch(batch.id) { item in
                    asked.withLockedValue { $0.append(item.key) }
                    switch item.kind {
                    case .data: return .data(Data(dataBytes))
                    case .stream: return .stream(expectedSize: nil, make: Self.stream(streamBytes, made: made))
                    case .file: return nil
                    }
                }
                let done = try await again.result()
                #expect(done.state == .completed)
                #expect(done.counts.uploaded == 2)
                #expect(done.counts.doneInEarlierRuns == 1)
                #expect(Set(asked.withLockedValue { $0 }) == ["r/z-data.bin", "r/z-stream.bin"])
                #expect(made.withLockedValue { $0 } == 1)
                // The Data in one PutObject, the stream (longer than a part) in two parts; the file not at all.
                let stats = await server.stats()
                #expect(stats[.putObject].requests == 1)
                #expect(stats[.uploadPart].requests == 2)
                #expect(stats[.putObject].requestBodyBytes == Int64(dataBytes.count))
                #expect(try await Self.object(second, "r/z-data.bin") == dataBytes)
                #expect(try await Self.object(second, "r/z-stream.bin") == streamBytes)
                let head = try await second.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "r/z-data.bin"))
                #expect(head.metadata["origin"] == "memory")
                #expect(try await relaunched.batches().isEmpty)
            }
        }
    }

    @Test("bad lists are refused before anything moves, naming the item and why")
    func badListsAreRefusedUpFront() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let file = try scratch.write("a", [1, 2, 3])
        let long = String(repeating: "k", count: 1024)
        let cases: [([OSSBatchUploadItem], Int, OSSBatchListProblem.Reason)] = [
            ([.init(file: file, key: "ok"), .init(data: Data([1]), key: "")], 1, .emptyKey),
            ([.init(file: file, key: long)], 0, .keyTooLong(bytes: 1024)),
            ([.init(file: file, key: "/abs")], 0, .keyStartsWithSeparator),
            ([.init(file: file, key: "a"), .init(data: Data([1]), key: "b"), .init(data: Data([2]), key: "a")], 2,
             .duplicateKey(firstIndex: 0)),
            ([.init(file: URL(string: "https://example.com/x")!, key: "x")], 0, .notAFileURL),
        ]
        try await withServerAndClient { server, client in
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            for (items, index, reason) in cases {
                let error = await thrownClientError { _ = try await manager.uploadBatch(items, toBucket: "bkt") }
                #expect(error?.code == .invalidArgument)
                let problem = error?.underlying as? OSSBatchListProblem
                #expect(problem?.index == index)
                #expect(problem?.reason == reason)
            }
            var options = OSSDirectoryTransferOptions()
            options.deleteExtras = true
            let withExtras = await thrownClientError {
                _ = try await manager.uploadBatch([.init(file: file, key: "k")], toBucket: "bkt", options: options)
            }
            #expect(withExtras?.code == .invalidArgument)
            #expect(await server.stats()[.putObject].requests == 0)
            let left = try await manager.batches()
            #expect(left.isEmpty, "a refused list leaves no batch")
        }
    }

    @Test("a list download writes each key under the directory; a key or path that would leave it is refused up front")
    func listDownload() async throws {
        let scratch = try BatchScratch()
        defer { scratch.cleanup() }
        let big = patternBytes(420_000, seed: 41)
        try await withServerAndClient { server, client in
            for (key, bytes) in [("photos/a.jpg", patternBytes(1000, seed: 42)), ("photos/big.mov", big), ("x", [9])] {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: key, data: Data(bytes)))
            }
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let outside = scratch.root.appendingPathComponent("x")
            let hostile: [(OSSBatchDownloadItem, OSSBatchListProblem.Reason)] = [
                (.init(key: "../x"), .unsafePath("../x", .escapesDirectory)),
                (.init(key: "/etc/passwd"), .keyStartsWithSeparator),
                (.init(key: "x", path: "/tmp/x"), .unsafePath("/tmp/x", .escapesDirectory)),
                (.init(key: "x", path: "../x"), .unsafePath("../x", .escapesDirectory)),
                (.init(key: "x", path: "a/../../x"), .unsafePath("a/../../x", .escapesDirectory)),
                (.init(key: "a//b"), .unsafePath("a//b", .invalidPathComponent)),
                (.init(key: "dir/"), .notAFilePath("dir/")),
            ]
            await server.resetStats()
            for (item, reason) in hostile {
                let error = await thrownClientError {
                    _ = try await manager.downloadBatch(
                        [.init(key: "photos/a.jpg"), item], fromBucket: "bkt", to: scratch.destination)
                }
                #expect(error?.code == .invalidArgument, "\(item)")
                let problem = error?.underlying as? OSSBatchListProblem
                #expect(problem?.index == 1)
                #expect(problem?.reason == reason, "\(item)")
            }
            let twice = await thrownClientError {
                _ = try await manager.downloadBatch(
                    [.init(key: "photos/a.jpg", path: "same"), .init(key: "x", path: "same")], fromBucket: "bkt",
                    to: scratch.destination)
            }
            #expect((twice?.underlying as? OSSBatchListProblem)?.reason == .duplicatePath(firstIndex: 0))
            #expect(await server.stats()[.getObject].requests == 0)
            #expect(!FileManager.default.fileExists(atPath: outside.path))
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))

            let batch = try await manager.downloadBatch(
                [.init(key: "photos/big.mov", path: "movies/big.mov"), .init(key: "photos/a.jpg"), .init(key: "missing")],
                fromBucket: "bkt", to: scratch.destination, options: batchOptions())
            let items = batchItems(batch)
            let report = try await batch.result()
            #expect(report.state == .completedWithFailures)
            #expect(report.counts.downloaded == 2)
            let ended = outcomes(await items.value)
            if case .failed(let failure)? = ended["missing"] {
                #expect(failure.serverErrorCode == "NoSuchKey")
            } else {
                Issue.record("missing: \(String(describing: ended["missing"]))")
            }
            #expect(report.bytesTransferred == Int64(big.count + 1000))
            let written = try Data(contentsOf: scratch.destination.appendingPathComponent("movies/big.mov"))
            #expect([UInt8](written) == big)
            let small = try Data(contentsOf: scratch.destination.appendingPathComponent("photos/a.jpg"))
            #expect([UInt8](small) == patternBytes(1000, seed: 42))
        }
    }

    @Test("the batch layer builds no transfer manager, and the manager knows only the batch store")
    func oneWayDependency() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/AliyunOSS/Transfer")
        let batchFolder = sources.appendingPathComponent("Batch")
        for name in try FileManager.default.contentsOfDirectory(atPath: batchFolder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: batchFolder.appendingPathComponent(name), encoding: .utf8)
            let code = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("///") }
                .joined(separator: "\n")
            #expect(!code.contains("OSSTransferManager"), "\(name) uses the transfer manager")
        }
        let managerFolder = sources.appendingPathComponent("Manager")
        for name in try FileManager.default.contentsOfDirectory(atPath: managerFolder.path) where name.hasSuffix(".swift") {
            let text = try String(contentsOf: managerFolder.appendingPathComponent(name), encoding: .utf8)
            for hidden in ["OSSBatchRunner", "OSSBatchJournal", "OSSBatchDirectory", "OSSBatchPlanner", "OSSBatchControl"] {
                #expect(!text.contains(hidden), "\(name) reaches into \(hidden)")
            }
        }
    }
}
