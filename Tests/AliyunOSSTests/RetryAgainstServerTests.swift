import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import OSSLocalServer
import OSSTestSupport
import Testing

@Suite("Retry, clock skew and cancellation against the local server")
struct RetryAgainstServerTests {
    @Test func retries503ThenSucceeds() async throws {
        let fault = LocalOSSFaultRule(operation: .putObject, trigger: .nth(1), action: .status(503, code: nil))
        try await withServerAndClient(faults: [fault]) { server, client in
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("abc".utf8)))
            #expect(put.crc64 == CRC64.checksum(Array("abc".utf8)))
            #expect(await server.stats()[.putObject].requests == 2)
        }
    }

    @Test func givesUpAfterMaxRetryCount() async throws {
        let fault = LocalOSSFaultRule(operation: .getObject, action: .status(500, code: "InternalError"))
        try await withServerAndClient(faults: [fault], configure: { $0.maxRetryCount = 2 }) { server, client in
            let error = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
            }
            #expect(error?.statusCode == 500 && error?.code == "InternalError")
            #expect(await server.stats()[.getObject].requests == 3)
        }
    }

    @Test func doesNotRetry4xx() async throws {
        try await withServerAndClient { server, client in
            _ = await serverError {
                _ = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "nope"))
            }
            #expect(await server.stats()[.getObject].requests == 1)
        }
    }

    @Test func droppedUploadIsRetriedAndProgressNeverGoesBackwards() async throws {
        let fault = LocalOSSFaultRule(
            operation: .uploadPart, trigger: .nth(1), action: .dropConnection(afterBytes: 300_000))
        try await withServerAndClient(faults: [fault]) { server, client in
            let bytes = patternBytes(1_000_000, seed: 5)
            let file = try makeTemporaryFile(bytes)
            defer { try? FileManager.default.removeItem(at: file) }
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "p"))
            let totals = NIOLockedValueBox<[Int64]>([])
            var request = OSSUploadPartRequest(
                bucketName: "bkt", objectKey: "p", uploadId: initiated.uploadId, partNumber: 1, fileURL: file, offset: 0,
                length: Int64(bytes.count))
            request.uploadProgress = { _, total, _ in totals.withLockedValue { $0.append(total) } }
            let part = try await client.uploadPart(request)
            #expect(part.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPart].requests == 2)
            let seen = totals.withLockedValue { $0 }
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 }, "progress is strictly increasing")
            #expect(seen.last == Int64(bytes.count))
        }
    }

    @Test(arguments: [OSSSignatureVersion.v1, .v4])
    func clockSkewIsCorrected(version: OSSSignatureVersion) async throws {
        // The server's clock runs an hour ahead for every request: the first attempt is RequestTimeTooSkewed,
        // the client learns the offset and every later request is signed with the server's time.
        let fault = LocalOSSFaultRule(operation: nil, action: .clockSkew(seconds: 3600))
        try await withServerAndClient(version: version, faults: [fault]) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("x".utf8)))
            #expect(await server.stats()[.putObject].requests == 2)
            _ = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "k"))
            #expect(await server.stats()[.headObject].requests == 1, "the learnt offset is reused")
        }
    }

    @Test func cancellationDuringBackoffIsTaskCancelled() async throws {
        let fault = LocalOSSFaultRule(operation: .getObject, action: .status(503, code: nil))
        try await withServerAndClient(
            faults: [fault],
            configure: { $0.retry = .init(maxRetryCount: 5, baseDelay: .seconds(30), maxDelay: .seconds(30)) }
        ) { server, client in
            let task = Task {
                try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "k"))
            }
            // Wait until the first attempt has failed, then cancel while the client sleeps before retrying.
            while await server.stats()[.getObject].requests < 1 {
                try await Task.sleep(for: .milliseconds(10))
            }
            task.cancel()
            let result = await task.result
            switch result {
            case .success: Issue.record("expected cancellation")
            case .failure(let error):
                #expect((error as? OSSClientError)?.code == .taskCancelled)
            }
        }
    }

    @Test func oneShotBodiesAreNotRetried() async throws {
        let fault = LocalOSSFaultRule(operation: .putObject, trigger: .nth(1), action: .status(503, code: nil))
        try await withServerAndClient(faults: [fault]) { server, client in
            let chunks = NIOLockedValueBox<[Data]>([Data("one-".utf8), Data("shot".utf8)])
            let stream = OSSBodyStream {
                chunks.withLockedValue { $0.isEmpty ? nil : $0.removeFirst() }
            }
            let operation = OSSOperation(
                name: "PutObject", method: "PUT", bucket: "bkt", key: "stream", body: .stream(length: 8, stream))
            #expect(!operation.body.isReplayable)
            let error = await serverError {
                _ = try await client.invoke(operation) { $0.status }
            }
            #expect(error?.statusCode == 503)
            #expect(await server.stats()[.putObject].requests == 1)

            // The same body kind goes through when the server accepts it.
            let again = NIOLockedValueBox<[Data]>([Data("one-".utf8), Data("shot".utf8)])
            let ok = OSSOperation(
                name: "PutObject", method: "PUT", bucket: "bkt", key: "stream",
                body: .stream(length: 8, OSSBodyStream { again.withLockedValue { $0.isEmpty ? nil : $0.removeFirst() } }))
            #expect(try await client.invoke(ok) { $0.status } == 200)
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "stream"))
            #expect(get.content == Data("one-shot".utf8))
        }
    }

    @Test func cancellingFileTransfersClosesFilesAndIsTaskCancelled() async throws {
        let faults = [
            LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 3000)),
            LocalOSSFaultRule(operation: .getObject, action: .delay(milliseconds: 3000)),
        ]
        try await withServerAndClient(faults: faults) { server, client in
            let bytes = patternBytes(500_000, seed: 2)
            let file = try makeTemporaryFile(bytes)
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "g", data: Data(bytes)))
            let initiated = try await client.initiateMultipartUpload(
                OSSInitiateMultipartUploadRequest(bucketName: "bkt", objectKey: "u"))
            let destination = try temporaryURL()
            let upload = Task {
                try await client.uploadPart(
                    OSSUploadPartRequest(
                        bucketName: "bkt", objectKey: "u", uploadId: initiated.uploadId, partNumber: 1, fileURL: file,
                        offset: 0, length: Int64(bytes.count)))
            }
            let download = Task {
                try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "g"), toFile: destination)
            }
            while true {
                let stats = await server.stats()
                if stats[.uploadPart].requests >= 1 && stats[.getObject].requests >= 1 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            upload.cancel()
            download.cancel()
            for result in [await upload.result.map { _ in () }, await download.result.map { _ in () }] {
                switch result {
                case .success: Issue.record("expected cancellation")
                case .failure(let error): #expect((error as? OSSClientError)?.code == .taskCancelled, "\(error)")
                }
            }
            #expect(!FileManager.default.fileExists(atPath: destination.path), "no partial destination file")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: destination.deletingLastPathComponent().path)
                .filter { $0.hasPrefix(destination.lastPathComponent + ".osstmp-") }
            #expect(leftovers.isEmpty, "the temporary file is removed")
        }
    }
}
