import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// An app container as iOS lays it out (`Documents/`, `Library/Transfers/` for the records), which moves to a new
/// path between a pause and the resume, as it does across an app update or a restore.
struct PortableContainer {
    let scratch: TMScratch
    private(set) var url: URL
    static let records = "Library/Transfers"

    init(_ scratch: TMScratch) throws {
        self.scratch = scratch
        url = scratch.root.appendingPathComponent("Application-1", isDirectory: true)
        try FileManager.default.createDirectory(
            at: url.appendingPathComponent("Documents"), withIntermediateDirectories: true)
    }

    var source: URL { url.appendingPathComponent("Documents/video.bin") }
    var destination: URL { url.appendingPathComponent("Documents/copy.bin") }
    var recordDirectory: URL { url.appendingPathComponent(Self.records) }

    /// The record files (not lock or temporary files).
    func records() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: recordDirectory.path)) ?? [])
            .filter { $0.hasSuffix(".record") }
    }

    /// Moves the whole container (file, temporary files, records) to a new path.
    mutating func move() throws {
        let moved = scratch.root.appendingPathComponent("Application-2", isDirectory: true)
        try FileManager.default.moveItem(at: url, to: moved)
        url = moved
    }

    func upload(_ key: String, records: Bool = true) -> OSSResumableUploadRequest {
        OSSResumableUploadRequest(
            bucketName: "bkt", objectKey: key, uploadingFileURL: source, partSize: tmPartSize, threadNum: 2,
            recordDirectoryPath: records ? Self.records : nil, baseDirectoryURL: url)
    }

    func download(_ key: String) -> OSSResumableDownloadRequest {
        OSSResumableDownloadRequest(
            bucketName: "bkt", objectKey: key, downloadToFileURL: destination, partSize: tmPartSize, threadNum: 2,
            recordDirectoryPath: Self.records, baseDirectoryURL: url)
    }
}

@Suite("Portable records: the container moves between a pause and the resume")
struct PortableTransferTests {
    static let size = 12 * Int(tmPartSize) + 777  // 13 parts

    /// Runs the upload `request` and pauses it after `afterParts` confirmed parts; returns its resume token.
    func pausedUpload(_ client: OSSClient, _ request: OSSResumableUploadRequest, afterParts: Int = 4) async throws
        -> OSSResumeToken
    {
        var request = request
        let handle = request
        let counter = TMCounter()
        request.uploadProgress = { _, _, _ in if counter.next() == afterParts { handle.pause() } }
        let error = await thrownClientError { _ = try await client.resumableUpload(request) }
        #expect(error?.code == .taskPaused, "\(String(describing: error))")
        return try #require(error?.resumeToken)
    }

    /// Runs `body` with a fresh container holding `Documents/video.bin` (pseudo-random bytes from `seed`, also
    /// handed to `body`), a local server and a client.
    func withContainer(
        seed: UInt64, _ body: (inout PortableContainer, [UInt8], LocalOSSServer, OSSClient) async throws -> Void
    ) async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        var container = try PortableContainer(scratch)
        let bytes = patternBytes(Self.size, seed: seed)
        try Data(bytes).write(to: container.source)
        try await withTMServer { server, client in try await body(&container, bytes, server, client) }
    }

    /// The resumed upload reused every part confirmed before the move and sent only what the server lacked. (The
    /// paused run's cancelled parts may reach the server's counters after the reset: at most one partial part per
    /// thread.)
    func expectOnlyMissingPartsSent(_ server: LocalOSSServer, _ result: OSSResumableUploadResult, _ token: OSSResumeToken)
        async
    {
        let sent = await server.stats()[.uploadPart].requestBodyBytes
        #expect(result.uploadId == token.uploadId, "resumed, not restarted")
        #expect(result.resumedBytes >= token.bytesDone, "the parts confirmed before the move were not sent again")
        #expect(sent >= Int64(Self.size) - result.resumedBytes)
        #expect(sent <= Int64(Self.size) - token.bytesDone + 2 * tmPartSize, "sent \(sent), kept \(token.bytesDone)")
        #expect(await server.stats()[.initiateMultipartUpload].requests == 0)
    }

    /// The object's bytes and its CRC-64 as the server reports it.
    func object(_ client: OSSClient, _ key: String) async throws -> (bytes: [UInt8], crc64: UInt64?) {
        let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: key))
        let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: key))
        return (Array(try #require(get.content)), head.crc64)
    }

    @Test("upload: record and token hold relative paths; after the move the same request resumes, no confirmed part re-sent")
    func uploadResumesAfterTheContainerMoved() async throws {
        try await withContainer(seed: 901) { container, bytes, server, client in
            let token = try await pausedUpload(client, container.upload("portable/up.bin"))
            #expect(token.isRelativeToBaseDirectory)
            #expect(token.filePath == "Documents/video.bin")
            #expect(token.bytesDone > 0 && token.bytesDone < Int64(Self.size))
            let names = container.records()
            #expect(names.count == 1)
            let recordText = try String(contentsOf: container.recordDirectory.appendingPathComponent(try #require(names.first)), encoding: .utf8)
            #expect(recordText.contains("\"filePath\":\"Documents/video.bin\""))
            #expect(!recordText.contains(container.scratch.root.path), "no absolute path in the record")

            try container.move()
            await server.resetStats()
            let result = try await client.resumableUpload(container.upload("portable/up.bin"))
            await expectOnlyMissingPartsSent(server, result, token)
            #expect(result.crc64 == CRC64.checksum(bytes))
            let stored = try await object(client, "portable/up.bin")
            #expect(stored.bytes == bytes)
            #expect(stored.crc64 == CRC64.checksum(bytes))
            #expect(container.records().isEmpty)
        }
    }

    @Test("download: the temporary file travels with the container; after the move only the missing parts are fetched")
    func downloadResumesAfterTheContainerMoved() async throws {
        try await withContainer(seed: 902) { container, bytes, server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "portable/down.bin", data: Data(bytes)))
            var first = container.download("portable/down.bin")
            let handle = first
            let counter = TMCounter()
            first.downloadProgress = { _, _, _ in if counter.next() == 4 { handle.pause() } }
            let paused = await thrownClientError { _ = try await client.resumableDownload(first) }
            #expect(paused?.code == .taskPaused)
            let token = try #require(paused?.resumeToken)
            #expect(token.isRelativeToBaseDirectory)
            #expect(token.filePath == "Documents/copy.bin")
            #expect(token.bytesDone >= 4 * tmPartSize)

            try container.move()
            await server.resetStats()
            let result = try await client.resumableDownload(container.download("portable/down.bin"))
            #expect(result.resumedBytes == token.bytesDone, "the moved temporary file was reused")
            // The paused run's cancelled ranges may reach the server's counters after the reset: at most one part
            // per thread, as for the upload.
            let fetched = await server.stats()[.getObject].responseBodyBytes
            #expect(fetched >= Int64(Self.size) - token.bytesDone)
            #expect(fetched <= Int64(Self.size) - token.bytesDone + 2 * tmPartSize, "fetched \(fetched), kept \(token.bytesDone)")
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(try Data(contentsOf: container.destination) == Data(bytes))
            let left = try FileManager.default.contentsOfDirectory(atPath: container.url.appendingPathComponent("Documents").path)
            #expect(!left.contains { $0.contains(".osstmp-") }, "no temporary file left")
            #expect(container.records().isEmpty)
        }
    }

    @Test("resume token: decoded after the move, it resumes the upload with a request from the new container")
    func tokenResumesAfterTheContainerMoved() async throws {
        try await withContainer(seed: 903) { container, bytes, server, client in
            let token = try await pausedUpload(client, container.upload("portable/token.bin", records: false))
            let stored = try JSONEncoder().encode(token)
            #expect(!String(decoding: stored, as: UTF8.self).contains(container.scratch.root.path))

            try container.move()
            let decoded = try JSONDecoder().decode(OSSResumeToken.self, from: stored)
            #expect(decoded == token)
            // The checksum is over a canonical encoding: however the app's encoder orders keys or escapes the
            // slashes of the relative path, or a tool rewrites the JSON, the token still verifies.
            for formatting: JSONEncoder.OutputFormatting in [[.prettyPrinted], [.sortedKeys, .withoutEscapingSlashes]] {
                let encoder = JSONEncoder()
                encoder.outputFormatting = formatting
                #expect(try JSONDecoder().decode(OSSResumeToken.self, from: encoder.encode(token)) == token)
            }
            let rewritten = try JSONSerialization.data(
                withJSONObject: JSONSerialization.jsonObject(with: stored), options: [.prettyPrinted])
            #expect(try JSONDecoder().decode(OSSResumeToken.self, from: rewritten) == token)
            // A request without a base directory names the file by its absolute path: not this token's transfer.
            var absolute = container.upload("portable/token.bin", records: false)
            absolute.baseDirectoryURL = nil
            let refused = await thrownClientError { _ = try await client.resumableUpload(absolute, resumingFrom: decoded) }
            #expect(refused?.code == .invalidArgument)

            await server.resetStats()
            let result = try await client.resumableUpload(
                container.upload("portable/token.bin", records: false), resumingFrom: decoded)
            await expectOnlyMissingPartsSent(server, result, token)
            #expect(try await object(client, "portable/token.bin").bytes == bytes)
        }
    }

    @Test("transfer manager: after relaunch in the moved container it lists the transfer there and resumes it")
    func managerResolvesAgainstTheNewContainer() async throws {
        try await withContainer(seed: 904) { container, bytes, server, client in
            let token = try await pausedUpload(client, container.upload("portable/manager.bin"))
            try container.move()

            // Without the base directory the record cannot be placed: listed as noEntry, and kept.
            let blind = OSSTransferManager(client: client, recordDirectoryPath: container.recordDirectory.path)
            let unplaced = try await blind.transfers()
            #expect(unplaced.map(\.state) == [.noEntry])
            #expect(unplaced.first?.problem?.contains("base directory") == true)
            // Nor do the hygiene tools, which have no base directory, take it for garbage.
            let recordsPath = container.recordDirectory.path
            #expect(try await client.findOrphanedUploads(bucketName: "bkt", olderThan: .zero, recordDirectoryPath: recordsPath).isEmpty)
            let sweep = try client.sweepStaleRecords(recordDirectoryPath: recordsPath, olderThan: .zero)
            #expect(sweep.removedRecords.isEmpty && sweep.keptRecords.count == 1)

            let manager = OSSTransferManager(
                client: client, recordDirectoryPath: PortableContainer.records, baseDirectoryURL: container.url)
            let transfer = try #require(try await manager.transfers().first)
            #expect(transfer.state == .suspended)
            #expect(transfer.filePath == OSSTestPath.resolved(container.source.path))
            #expect(transfer.uploadId == token.uploadId)
            #expect(try await manager.resumeToken(for: transfer.id).filePath == "Documents/video.bin")

            await server.resetStats()
            let outcomes = try await manager.resumeAll()
            guard case .success(.uploaded(let result))? = outcomes[transfer.id] else {
                Issue.record("expected an upload, got \(outcomes)")
                return
            }
            await expectOnlyMissingPartsSent(server, result, token)
            #expect(try await object(client, "portable/manager.bin").bytes == bytes)
            #expect(try await manager.transfers().isEmpty)
        }
    }

    @Test("a file outside the base directory is refused with invalidArgument")
    func fileOutsideTheBaseIsRefused() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let container = try PortableContainer(scratch)
        let outside = try scratch.write(patternBytes(1000, seed: 905), to: "outside.bin")
        try await withTMServer { _, client in
            var request = container.upload("portable/outside.bin")
            request.uploadingFileURL = outside
            let error = await thrownClientError { _ = try await client.resumableUpload(request) }
            #expect(error?.code == .invalidArgument)
            #expect(error?.message.contains("does not lie inside baseDirectoryURL") == true)
        }
    }
}

/// Paths as the SDK records them (symbolic links resolved, e.g. /tmp on macOS).
enum OSSTestPath {
    static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
