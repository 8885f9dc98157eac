import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableDownload: pause and resume tokens")
struct ResumableDownloadPauseTests {
    static let size = 10 * Int(rdPartSize)  // 10 parts
    static let threads = 2

    /// Runs `request` and pauses it once `afterParts` parts are recorded; returns the `taskPaused` error.
    func pausedRun(_ client: OSSClient, _ request: OSSResumableDownloadRequest, afterParts: Int) async -> OSSClientError? {
        var request = request
        let handle = request
        request.downloadProgress = RDProgressLog().handler { count in if count == afterParts { handle.pause() } }
        let error = await thrownClientError { _ = try await client.resumableDownload(request) }
        #expect(error?.code == .taskPaused, "\(String(describing: error))")
        #expect(request.isPaused && !request.isCancelled)
        return error
    }

    @Test("without a record directory: cancel removes the temporary file, pause keeps it and hands back a token")
    func pauseWithoutRecordDirectory() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 401)
        try await withServerAndClient { server, client in
            try await rdPut(client, "p.bin", bytes)
            // cancel(): today's behaviour, nothing is left behind.
            var cancelling = rdRequest("p.bin", scratch, record: false, threads: Self.threads)
            let handle = cancelling
            cancelling.downloadProgress = RDProgressLog().handler { count in if count == 2 { handle.cancel() } }
            let cancelled = await thrownClientError { _ = try await client.resumableDownload(cancelling) }
            #expect(cancelled?.code == .taskCancelled)
            #expect(try scratch.temporaryFiles().isEmpty)

            let paused = await pausedRun(
                client, rdRequest("p.bin", scratch, record: false, threads: Self.threads), afterParts: 3)
            let token = try #require(paused?.resumeToken)
            #expect(token.kind == .download && token.objectKey == "p.bin")
            #expect(token.bytesDone >= 3 * rdPartSize)
            #expect(token.objectETag != nil)
            #expect(try scratch.temporaryFiles().count == 1)
            #expect(!FileManager.default.fileExists(atPath: scratch.destination.path))

            let decoded = try JSONDecoder().decode(OSSResumeToken.self, from: try JSONEncoder().encode(token))
            await server.resetStats()
            let result = try await client.resumableDownload(
                rdRequest("p.bin", scratch, record: false, threads: Self.threads), resumingFrom: decoded)
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.resumedBytes == token.bytesDone)
            expectOnlyMissingParts(await rdGetBytes(server), missing: Int64(Self.size) - token.bytesDone)
            #expect(try scratch.temporaryFiles().isEmpty)
        }
    }

    @Test("with a record directory: the token alone resumes after the records are lost")
    func pauseWithRecordDirectory() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size + 999, seed: 402)
        try await withServerAndClient { server, client in
            try await rdPut(client, "r.bin", bytes)
            let paused = await pausedRun(client, rdRequest("r.bin", scratch, threads: Self.threads), afterParts: 4)
            let token = try #require(paused?.resumeToken)
            #expect(scratch.records().count == 1)
            try FileManager.default.removeItem(atPath: scratch.recordDirectory)
            await server.resetStats()
            let result = try await client.resumableDownload(
                rdRequest("r.bin", scratch, threads: Self.threads), resumingFrom: token)
            #expect(try scratch.destinationBytes() == bytes)
            #expect(result.resumedBytes == token.bytesDone)
            expectOnlyMissingParts(await rdGetBytes(server), missing: Int64(bytes.count) - token.bytesDone)
            #expect(scratch.records().isEmpty)
            #expect(try scratch.leftovers() == [])
        }
    }

    /// The resumed run fetched the missing bytes and nothing it already had. The paused run's cancelled ranges may
    /// reach the server's counters after the reset (the server counts a reply as it starts writing it): at most one
    /// part per thread.
    func expectOnlyMissingParts(_ fetched: Int64, missing: Int64, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(fetched >= missing, "fetched \(fetched) of the \(missing) missing", sourceLocation: sourceLocation)
        #expect(
            fetched <= missing + Int64(Self.threads) * rdPartSize, "fetched \(fetched), only \(missing) missing",
            sourceLocation: sourceLocation)
    }

    @Test("a download token for another destination or range, or an upload request, is refused")
    func foreignTokenRefused() async throws {
        let scratch = try RDScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 403)
        try await withServerAndClient { _, client in
            try await rdPut(client, "f.bin", bytes)
            let paused = await pausedRun(client, rdRequest("f.bin", scratch, threads: Self.threads), afterParts: 2)
            let token = try #require(paused?.resumeToken)
            var otherDestination = rdRequest("f.bin", scratch)
            otherDestination.downloadToFileURL = scratch.root.appendingPathComponent("elsewhere.bin")
            let otherRange = rdRequest("f.bin", scratch, range: .from(10))
            let otherKey = rdRequest("g.bin", scratch)
            for (request, field) in [(otherDestination, "destination"), (otherRange, "range"), (otherKey, "object")] {
                let error = await thrownClientError { _ = try await client.resumableDownload(request, resumingFrom: token) }
                #expect(error?.code == .invalidArgument)
                #expect(error?.message.contains(field) == true, "\(String(describing: error))")
            }
            let upload = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "f.bin", uploadingFileURL: scratch.root.appendingPathComponent("x.bin"))
            let error = await thrownClientError { _ = try await client.resumableUpload(upload, resumingFrom: token) }
            #expect(error?.code == .invalidArgument)
            #expect(try scratch.temporaryFiles().count == 1, "the paused download is untouched")
        }
    }
}
