import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("resumableUpload: pause versus cancel, resume tokens")
struct ResumableUploadPauseTests {
    static let size = 10 * Int(ruPartSize) + 5_555  // 11 parts
    static let threads = 2

    /// Runs `request` and pauses it (with `pause()` on a copy) once `afterReports` parts are confirmed; returns the
    /// `taskPaused` error.
    func pausedRun(_ client: OSSClient, _ request: OSSResumableUploadRequest, afterReports: Int) async -> OSSClientError? {
        var request = request
        let handle = request
        let log = RUProgressLog()
        request.uploadProgress = log.handler { count in if count == afterReports { handle.pause() } }
        let error = await thrownClientError { _ = try await client.resumableUpload(request) }
        #expect(error?.code == .taskPaused, "\(String(describing: error))")
        #expect(request.isPaused && !request.isCancelled)
        return error
    }

    @Test("pause keeps the upload and the record even with deleteUploadIdOnCancelling; cancel aborts both")
    func pauseVersusCancel() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 301)
        try scratch.write(bytes)
        try await withServerAndClient { _, client in
            let paused = await pausedRun(
                client, ruRequest("pause.bin", scratch, threads: Self.threads, deleteOnCancel: true), afterReports: 3)
            let token = try #require(paused?.resumeToken)
            #expect(try await ruUploads(client, "pause.bin") == [token.uploadId])
            #expect(scratch.records().count == 1)
            #expect(token.kind == .upload && token.objectKey == "pause.bin")
            #expect(token.bytesDone >= 3 * ruPartSize)
            #expect(token.totalBytes == Int64(Self.size))

            // The same moment with cancel(): the flag says abort, and it does.
            let request = ruRequest("cancel.bin", scratch, threads: Self.threads, deleteOnCancel: true)
            var cancelling = request
            cancelling.uploadProgress = RUProgressLog().handler { count in if count == 3 { request.cancel() } }
            let cancelled = await thrownClientError { _ = try await client.resumableUpload(cancelling) }
            #expect(cancelled?.code == .taskCancelled)
            #expect(cancelled?.resumeToken == nil)
            #expect(try await ruUploads(client, "cancel.bin").isEmpty)
            #expect(scratch.records().count == 1, "only the paused upload's record is left")
        }
    }

    @Test("pause → token → JSON → resume with the token alone: byte-identical, re-sent ≤ threadNum × partSize")
    func tokenRoundTrip() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 302)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            let paused = await pausedRun(
                client, ruRequest("token.bin", scratch, threads: Self.threads), afterReports: 4)
            let json = try JSONEncoder().encode(try #require(paused?.resumeToken))
            // The records are lost (a reinstall, a cleared cache); the app kept the token.
            try FileManager.default.removeItem(atPath: scratch.recordDirectory)
            let token = try JSONDecoder().decode(OSSResumeToken.self, from: json)

            let log = RUProgressLog()
            let result = try await client.resumableUpload(
                ruRequest("token.bin", scratch, threads: Self.threads, progress: log.handler()), resumingFrom: token)
            #expect(result.uploadId == token.uploadId)
            #expect(result.resumedBytes >= token.bytesDone)
            #expect(try await ruObject(client, "token.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            log.verify(startingAt: result.resumedBytes, expected: Int64(Self.size))
            let sent = await ruPartBytes(server)
            #expect(sent - Int64(Self.size) <= Int64(Self.threads) * ruPartSize, "re-sent \(sent - Int64(Self.size))")
            #expect(try await ruUploads(client, "token.bin").isEmpty)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test("without a record directory, a pause still hands back a token and the upload resumes from it")
    func tokenWithoutRecordDirectory() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 303)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            let paused = await pausedRun(
                client, ruRequest("memory.bin", scratch, record: false, threads: Self.threads), afterReports: 2)
            let token = try #require(paused?.resumeToken)
            #expect(try await ruUploads(client, "memory.bin") == [token.uploadId], "kept although the flag says abort")
            #expect(!FileManager.default.fileExists(atPath: scratch.recordDirectory))
            let result = try await client.resumableUpload(
                ruRequest("memory.bin", scratch, record: false, threads: Self.threads), resumingFrom: token)
            #expect(result.uploadId == token.uploadId)
            #expect(result.resumedBytes >= token.bytesDone)
            #expect(try await ruObject(client, "memory.bin") == bytes)
            let sent = await ruPartBytes(server)
            #expect(sent - Int64(Self.size) <= Int64(Self.threads) * ruPartSize)
        }
    }

    @Test("a token for another key, file, part size or CRC mode, or a download, is refused and changes nothing")
    func foreignTokenRefused() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try scratch.write(patternBytes(Self.size, seed: 304))
        let other = scratch.root.appendingPathComponent("other.bin")
        try Data(patternBytes(Self.size, seed: 305)).write(to: other)
        try await withServerAndClient { server, client in
            let paused = await pausedRun(client, ruRequest("mine.bin", scratch, threads: Self.threads), afterReports: 2)
            let token = try #require(paused?.resumeToken)
            // Parts the paused run had on their way end first (URLSession may deliver one after the pause returned).
            try await settledRequests(server, .uploadPart)
            await server.resetStats()
            let otherKey = ruRequest("theirs.bin", scratch)
            var otherFile = ruRequest("mine.bin", scratch)
            otherFile.uploadingFileURL = other
            var otherPartSize = ruRequest("mine.bin", scratch)
            otherPartSize.partSize = 2 * ruPartSize
            var otherCRC = ruRequest("mine.bin", scratch)
            otherCRC.crcFlag = false
            for (request, field) in [(otherKey, "object"), (otherFile, "local file"), (otherPartSize, "part size"),
                                     (otherCRC, "CRC mode")] {
                let error = await thrownClientError { _ = try await client.resumableUpload(request, resumingFrom: token) }
                #expect(error?.code == .invalidArgument)
                #expect(error?.message.contains(field) == true, "\(String(describing: error))")
            }
            let download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "mine.bin", downloadToFileURL: scratch.root.appendingPathComponent("d.bin"))
            let error = await thrownClientError { _ = try await client.resumableDownload(download, resumingFrom: token) }
            #expect(error?.code == .invalidArgument)
            // Nothing was sent, nothing was aborted, the record is as the pause left it.
            #expect(await server.stats()[.uploadPart].requests == 0)
            #expect(try await ruUploads(client, "mine.bin") == [token.uploadId])
            #expect(scratch.records().count == 1)
        }
    }

    @Test("an edited token is refused when decoded, even when its copies agree")
    func editedTokenRefused() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try scratch.write(patternBytes(Self.size, seed: 306))
        try await withServerAndClient { _, client in
            let paused = await pausedRun(client, ruRequest("edit.bin", scratch, threads: Self.threads), afterReports: 2)
            let json = try JSONEncoder().encode(try #require(paused?.resumeToken))
            #expect(try JSONDecoder().decode(OSSResumeToken.self, from: json) == paused?.resumeToken)
            // The app's own encoder settings do not matter: the checksum covers the values, not the bytes.
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted]
            encoder.keyEncodingStrategy = .convertToSnakeCase
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let styled = try encoder.encode(try #require(paused?.resumeToken))
            #expect(try decoder.decode(OSSResumeToken.self, from: styled) == paused?.resumeToken)
            let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
            // The upload id changed consistently in the readable copy and in the record.
            var edited = object
            var record = try #require(object["record"] as? [String: Any])
            record["uploadId"] = "someone-elses-upload"
            edited["record"] = record
            edited["uploadId"] = "someone-elses-upload"
            let data = try JSONSerialization.data(withJSONObject: edited)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(OSSResumeToken.self, from: data) }
            // A part dropped from the record.
            record = try #require(object["record"] as? [String: Any])
            record["parts"] = []
            edited = object
            edited["record"] = record
            let dropped = try JSONSerialization.data(withJSONObject: edited)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(OSSResumeToken.self, from: dropped) }
            // No checksum at all.
            edited = object
            edited["checksum"] = nil
            let bare = try JSONSerialization.data(withJSONObject: edited)
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(OSSResumeToken.self, from: bare) }
        }
    }
}
