import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSResumable
import OSSTestSupport
import Testing

@Suite("resumableUpload: cancel, resume and records")
struct ResumableUploadResumeTests {
    static let size = 1_024_000  // exactly 10 parts

    /// Runs an upload that cancels itself after `afterParts` confirmed parts and checks it threw taskCancelled.
    func cancelledRun(_ client: OSSClient, _ key: String, _ scratch: RUScratch, afterParts: Int, deleteOnCancel: Bool)
        async
    {
        var request = ruRequest(key, scratch, threads: 2, deleteOnCancel: deleteOnCancel)
        // Copies share the cancellation state: a copy taken before the handler is set cancels the run.
        let handle = request
        request.uploadProgress = RUProgressLog().handler { count in if count == afterParts { handle.cancel() } }
        let error = await thrownClientError { _ = try await client.resumableUpload(request) }
        #expect(error?.code == .taskCancelled)
    }

    @Test("cancel with deleteUploadIdOnCancelling = false keeps upload and record; the next call resumes")
    func cancelKeepThenResume() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 21)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            await cancelledRun(client, "keep.bin", scratch, afterParts: 3, deleteOnCancel: false)
            #expect(scratch.records().count == 1)
            #expect(try await ruUploads(client, "keep.bin").count == 1)
            await server.clearFaults()
            await server.resetStats()

            let log = RUProgressLog()
            let result = try await client.resumableUpload(ruRequest("keep.bin", scratch, progress: log.handler()))
            #expect(try await ruObject(client, "keep.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(result.resumedBytes >= 3 * ruPartSize)
            // Only the parts the server lacked were sent.
            #expect(await ruPartBytes(server) == Int64(Self.size) - result.resumedBytes)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0)
            log.verify(startingAt: result.resumedBytes, expected: Int64(Self.size))
            #expect(scratch.records().isEmpty)
            #expect(try await ruUploads(client, "keep.bin").isEmpty)
        }
    }

    @Test("cancel with deleteUploadIdOnCancelling = true aborts the upload and removes the record")
    func cancelDelete() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 22)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            await cancelledRun(client, "delete.bin", scratch, afterParts: 2, deleteOnCancel: true)
            #expect(scratch.records().isEmpty)
            #expect(try await ruUploads(client, "delete.bin").isEmpty)
            #expect(await server.stats()[.abortMultipartUpload].requests == 1)
            await server.clearFaults()
            // The next call starts clean.
            let result = try await client.resumableUpload(ruRequest("delete.bin", scratch))
            #expect(result.resumedBytes == 0)
            #expect(try await ruObject(client, "delete.bin") == bytes)
        }
    }

    @Test("Task cancellation stops the upload promptly, like cancel()", arguments: [true, false])
    func taskCancellation(deleteOnCancel: Bool) async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try scratch.write(patternBytes(Self.size, seed: 23))
        try await withServerAndClient { server, client in
            // Every part is held for 5 minutes before the server reads its body: only a run that cancels its parts
            // (rather than awaiting them) can return; the server's shutdown ends the delays. (A short delay made
            // the check below depend on how loaded the machine was.)
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 300_000)))
            let request = ruRequest("task.bin", scratch, threads: 2, deleteOnCancel: deleteOnCancel)
            let task = Task { try await client.resumableUpload(request) }
            // Wait until the first parts are in flight.
            for _ in 0..<400 where await server.stats()[.uploadPart].requests < 2 {
                try await Task.sleep(for: .milliseconds(10))
            }
            task.cancel()
            let error = await thrownClientError { _ = try await task.value }
            #expect(error?.code == .taskCancelled)
            // The in-flight parts were cancelled, not awaited: the server (still inside its delay) has not
            // finished either of them when the call has already returned.
            #expect(await ruPartBytes(server) == 0)
            #expect(await server.stats()[.uploadPart].requests == 2)
            #expect(scratch.records().count == (deleteOnCancel ? 0 : 1))
            #expect(try await ruUploads(client, "task.bin").count == (deleteOnCancel ? 0 : 1))
        }
    }

    @Test("a request cancelled before it starts sends nothing")
    func cancelledBeforeStart() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        try scratch.write(patternBytes(300_000))
        try await withServerAndClient { server, client in
            let request = ruRequest("early.bin", scratch)
            request.cancel()
            #expect(await thrownClientError { _ = try await client.resumableUpload(request) }?.code == .taskCancelled)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0)
            #expect(await server.stats()[.uploadPart].requests == 0)
        }
    }

    @Test("file modified while suspended: cannotResumeUpload, stale upload aborted, record removed; next call is clean")
    func fileModified() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        var bytes = patternBytes(Self.size, seed: 24)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            await cancelledRun(client, "modified.bin", scratch, afterParts: 2, deleteOnCancel: false)
            await server.clearFaults()
            #expect(try await ruUploads(client, "modified.bin").count == 1)
            // Same size, one byte changed.
            bytes[500_000] ^= 0x5A
            try scratch.write(bytes)
            let error = await thrownClientError { _ = try await client.resumableUpload(ruRequest("modified.bin", scratch)) }
            #expect(error?.code == .cannotResumeUpload)
            #expect(scratch.records().isEmpty)
            #expect(try await ruUploads(client, "modified.bin").isEmpty)
            let result = try await client.resumableUpload(ruRequest("modified.bin", scratch))
            #expect(result.resumedBytes == 0)
            #expect(try await ruObject(client, "modified.bin") == bytes)
        }
    }

    @Test("upload aborted behind its back: a new upload starts automatically")
    func abortedBehindItsBack() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 25)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            await cancelledRun(client, "aborted.bin", scratch, afterParts: 3, deleteOnCancel: false)
            await server.clearFaults()
            for uploadId in try await ruUploads(client, "aborted.bin") {
                try await client.abortMultipartUpload(
                    OSSAbortMultipartUploadRequest(bucketName: "bkt", objectKey: "aborted.bin", uploadId: uploadId))
            }
            await server.resetStats()
            let result = try await client.resumableUpload(ruRequest("aborted.bin", scratch))
            #expect(result.resumedBytes == 0)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1)
            #expect(await ruPartBytes(server) == Int64(Self.size))
            #expect(try await ruObject(client, "aborted.bin") == bytes)
            #expect(scratch.records().isEmpty)
        }
    }

    @Test(
        "a damaged record is said, the upload it still names is aborted, and a fresh upload completes",
        arguments: ["truncate", "edit", "structure", "garbage"])
    func corruptRecord(kind: String) async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 26)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 30)))
            await cancelledRun(client, "corrupt.bin", scratch, afterParts: 3, deleteOnCancel: false)
            await server.clearFaults()
            let abandoned = try await ruUploads(client, "corrupt.bin")
            #expect(abandoned.count == 1)
            let path = try scratch.recordPath()
            var record = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            switch kind {
            case "truncate": record = Array(record.prefix(record.count / 2))
            case "edit":
                // The checksum's first hex digit: the JSON still parses, the checksum fails.
                let marker = Array(#""checksum":""#.utf8)
                let at = try #require((0...(record.count - marker.count)).first { Array(record[$0..<$0 + marker.count]) == marker })
                let index = at + marker.count
                record[index] = record[index] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            case "structure":
                // The envelope is no longer JSON at all; the upload id is still in its bytes.
                record[0] = UInt8(ascii: "[")
            default: record = patternBytes(100, seed: 99)
            }
            try Data(record).write(to: URL(fileURLWithPath: path))
            await server.resetStats()
            let notices = OSSLockedValue<[OSSRecordNotice]>([])
            var request = ruRequest("corrupt.bin", scratch)
            request.recordNotice = { notice in notices.withLockedValue { $0.append(notice) } }
            let result = try await client.resumableUpload(request)
            #expect(result.resumedBytes == 0)
            #expect(await server.stats()[.initiateMultipartUpload].requests == 1)
            #expect(try await ruObject(client, "corrupt.bin") == bytes)
            #expect(scratch.records().isEmpty)
            // Said once, naming the record.
            let said = notices.withLockedValue { $0 }
            #expect(said.count == 1)
            #expect(said.first?.recordPath.hasSuffix("/" + URL(fileURLWithPath: path).lastPathComponent) == true, "\(said)")
            #expect(said.first?.direction == .upload)
            switch kind {
            case "edit", "structure":
                // The upload id could still be read: that upload is aborted, none is left behind.
                #expect(said.first?.abortedUploadId == abandoned.first)
                #expect(await server.stats()[.abortMultipartUpload].requests == 1)
                #expect(try await ruUploads(client, "corrupt.bin").isEmpty)
                #expect(said.first?.description.contains("aborting its multipart upload \(abandoned[0])") == true)
            default:
                // Nothing names it any more: it stays, and the notice says how to find it.
                #expect(said.first?.abortedUploadId == nil)
                #expect(try await ruUploads(client, "corrupt.bin") == abandoned)
                #expect(said.first?.description.contains("oss ls -m") == true)
            }
        }
    }

    @Test("a second resumer of the same record gets transferInUse at once while the first holds the lock")
    func concurrentResume() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 27)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 200)))
            let first = Task { try await client.resumableUpload(ruRequest("lock.bin", scratch, threads: 1)) }
            for _ in 0..<400 where await server.stats()[.uploadPart].requests < 1 {
                try await Task.sleep(for: .milliseconds(10))
            }
            let error = await thrownClientError { _ = try await client.resumableUpload(ruRequest("lock.bin", scratch)) }
            #expect(error?.code == .transferInUse)
            await server.clearFaults()
            _ = try await first.value
            #expect(try await ruObject(client, "lock.bin") == bytes)
        }
    }

    @Test("a failure after retries keeps the record; the next call resumes")
    func failureKeepsRecord() async throws {
        let scratch = try RUScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 28)
        try scratch.write(bytes)
        try await withServerAndClient { server, client in
            // Every part fails for good (the client retries, then gives up) after the upload was initiated.
            await server.addFault(LocalOSSFaultRule(operation: .uploadPart, action: .status(503, code: nil)))
            let error = await serverError { _ = try await client.resumableUpload(ruRequest("fail.bin", scratch, threads: 1)) }
            #expect(error?.statusCode == 503)
            #expect(scratch.records().count == 1)
            #expect(try await ruUploads(client, "fail.bin").count == 1)
            await server.clearFaults()
            await server.resetStats()
            let result = try await client.resumableUpload(ruRequest("fail.bin", scratch))
            // The same upload continued: no new InitiateMultipartUpload.
            #expect(await server.stats()[.initiateMultipartUpload].requests == 0)
            #expect(try await ruObject(client, "fail.bin") == bytes)
            #expect(result.crc64 == CRC64.checksum(bytes))
        }
    }
}
