@testable import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// Against the local server: an error the disposition calls retryable is retried the same way by a plain operation
/// and by a resumable transfer's part (both directions), and one it calls final is not retried by either.
@Suite("Error dispositions against the local server")
struct ErrorDispositionServerTests {
    static let partSize = OSSResumableUploadRequest.minimumPartSize
    static let parts = 3

    /// Retryable answers injected once: an attempt failure (`RequestTimeout`, `InvalidDigest`, 503), a skewed clock.
    static let retryable: [String] = ["RequestTimeout", "InvalidDigest", "ServiceUnavailable", "RequestTimeTooSkewed"]

    static func action(_ code: String) -> LocalOSSFaultRule.Action {
        let status = OSSServerError.knownCodes[code]?.status ?? 500
        return .status(status, code: code)
    }

    @Test(arguments: retryable)
    func aRetryableAnswerIsRetriedByAPlainOperationAndByATransferPart(code: String) async throws {
        #expect(OSSErrorDisposition(OSSServerError(statusCode: 400, code: code, message: "")) == .retryable)
        let bytes = patternBytes(Int(Self.partSize) * Self.parts, seed: 29)
        let file = try makeTemporaryFile(bytes)
        let records = try temporaryURL()
        let destination = try temporaryURL()
        defer {
            for url in [file, records, destination] { try? FileManager.default.removeItem(at: url) }
        }
        let faults = [
            LocalOSSFaultRule(operation: .putObject, trigger: .nth(1), action: Self.action(code)),
            LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(2), action: Self.action(code)),
            LocalOSSFaultRule(operation: .getObject, trigger: .nth(2), action: Self.action(code)),
        ]
        try await withServerAndClient(faults: faults) { server, client in
            // A plain operation: one failed attempt, one that succeeds.
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "plain", data: Data("abc".utf8)))
            #expect(put.crc64 == CRC64.checksum(Array("abc".utf8)))
            #expect(await server.stats()[.putObject].requests == 2, "\(code)")

            // A resumable upload's second part: the same, and the upload completes.
            let upload = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "resumable", uploadingFileURL: file, partSize: Self.partSize,
                threadNum: 1, recordDirectoryPath: records.path)
            let uploaded = try await client.resumableUpload(upload)
            #expect(uploaded.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPart].requests == Int64(Self.parts) + 1, "\(code)")

            // A resumable download's second part: the same, and the copy is whole.
            let download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "resumable", downloadToFileURL: destination, partSize: Self.partSize,
                threadNum: 1, recordDirectoryPath: records.path)
            _ = try await client.resumableDownload(download)
            #expect(Array(try Data(contentsOf: destination)) == bytes)
            #expect(await server.stats()[.getObject].requests == Int64(Self.parts) + 1, "\(code)")
        }
    }

    @Test func aFinalAnswerIsNotRetriedEvenWithA5xxStatus() async throws {
        let bytes = patternBytes(Int(Self.partSize) * 2, seed: 30)
        let file = try makeTemporaryFile(bytes)
        let records = try temporaryURL()
        defer {
            for url in [file, records] { try? FileManager.default.removeItem(at: url) }
        }
        let faults = [
            LocalOSSFaultRule(operation: .putObject, trigger: .nth(1), action: .status(501, code: "NotImplemented")),
            LocalOSSFaultRule(operation: .uploadPart, trigger: .nth(1), action: .status(501, code: "NotImplemented")),
        ]
        try await withServerAndClient(faults: faults) { server, client in
            let plain = await serverError {
                _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "plain", data: Data("abc".utf8)))
            }
            #expect(plain?.code == "NotImplemented")
            #expect(await server.stats()[.putObject].requests == 1)
            let upload = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "resumable", uploadingFileURL: file, partSize: Self.partSize,
                threadNum: 1, recordDirectoryPath: records.path)
            let part = await serverError { _ = try await client.resumableUpload(upload) }
            #expect(part?.code == "NotImplemented")
            #expect(await server.stats()[.uploadPart].requests == 1)
        }
    }
}
