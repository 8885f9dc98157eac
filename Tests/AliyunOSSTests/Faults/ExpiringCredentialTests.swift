import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// STS credentials issued by the local server itself (``LocalOSSServer/issueTemporaryCredentials(lifetime:)``),
/// which it refuses with 403 `SecurityTokenExpired` once they expire, during long uploads and downloads: the
/// refreshing provider fetches once, not once per part; concurrent parts share that fetch; only the parts in
/// flight when the credentials expired are sent again (server counters); a refresh that fails ends the transfer
/// with a typed error and keeps the record, and a later call resumes.
///
/// The credentials run out after a known number of parts are confirmed (``expiry(of:afterParts:)``), never after a
/// time: on a loaded machine, four-second credentials once ran out before the first part of a download was on disk.
@Suite("Credentials that expire mid-transfer")
struct ExpiringCredentialTests {
    static let parts = 15
    static let threads = 3

    /// A provider whose first fetch returns credentials that the server refuses once the test expires them
    /// (``expiry(of:afterParts:)``), with no expiration the client could see (as when the client's clock or the STS
    /// answer is off), and whose later fetches return one-hour credentials, or throw `failure` when given.
    static func provider(
        _ box: TMServerBox, calls: TMCounter, failure: (any Error & Sendable)? = nil
    ) -> OSSRefreshingCredentialProvider {
        OSSRefreshingCredentialProvider {
            let server = try #require(box.server)
            if calls.next() == 1 {
                let issued = server.issueTemporaryCredentials(lifetime: .seconds(3600))
                return OSSFederationToken(
                    accessKeyId: issued.accessKeyId, accessKeySecret: issued.accessKeySecret,
                    securityToken: issued.securityToken, expiration: nil)
            }
            if let failure { throw failure }
            let issued = server.issueTemporaryCredentials(lifetime: .seconds(3600))
            return OSSFederationToken(
                accessKeyId: issued.accessKeyId, accessKeySecret: issued.accessKeySecret,
                securityToken: issued.securityToken, expiration: issued.expiration)
        }
    }

    /// A progress handler (per confirmed part) that makes the temporary credentials the server issued so far expire,
    /// once, when `parts` parts are confirmed: stored by the server, or written to the temporary file and its
    /// journal. The driver reports a confirmed part before it starts the next one, so when `parts` are confirmed at
    /// most `parts - 1 + threads` have been sent, and every later part meets the expired credentials, however slow
    /// the machine; credentials a refresh fetches afterwards stay good.
    static func expiry(of server: LocalOSSServer, afterParts parts: Int) -> OSSProgressHandler {
        let fired = TMCounter()
        return { _, total, _ in
            if total >= Int64(parts) * tmPartSize, fired.next() == 1 { server.expireTemporaryCredentials() }
        }
    }

    @Test("credentials shorter-lived than the refresh window are fetched once, not for every part")
    func shortLivedCredentialsAreNotFetchedPerRequest() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(12 * Int(tmPartSize), seed: 94)
        let source = try scratch.write(bytes, to: "source.bin")
        let box = TMServerBox()
        let calls = TMCounter()
        // Two-minute credentials with their real expiration, under the default five-minute refresh window.
        let provider = OSSRefreshingCredentialProvider {
            _ = calls.next()
            let issued = try #require(box.server).issueTemporaryCredentials(lifetime: .seconds(120))
            return OSSFederationToken(
                accessKeyId: issued.accessKeyId, accessKeySecret: issued.accessKeySecret,
                securityToken: issued.securityToken, expiration: issued.expiration)
        }
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "short.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: Self.threads, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(calls.value == 1)
            #expect(server.temporaryCredentialsIssued == 1)
        }
    }

    @Test("credentials expire during an upload and a download: one refresh each, only the parts in flight resent")
    func expiryMidTransferRefreshesOnce() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.parts * Int(tmPartSize) - 999, seed: 95)
        let source = try scratch.write(bytes, to: "source.bin")
        let box = TMServerBox()
        let uploadCalls = TMCounter()
        let uploadProvider = Self.provider(box, calls: uploadCalls)
        try await withTMServer(provider: uploadProvider) { server, client in
            box.set(server)
            var request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "expiring.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: Self.threads, recordDirectoryPath: scratch.recordDirectory)
            request.uploadProgress = Self.expiry(of: server, afterParts: 1)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(uploadCalls.value == 2)
            #expect(await uploadProvider.fetchCount == 2)
            let up = await server.stats()
            let resent = up[.uploadPart].requests - Int64(Self.parts)
            // The credentials expired mid-upload (a part was refused), and at most the parts in flight were refused.
            #expect(resent >= 1)
            #expect(resent <= Int64(Self.threads))
            #expect(up[.completeMultipartUpload].requests == 1)

            // The same for a download, with its own provider and fresh credentials, expired after its first part.
            await server.resetStats()
            let downloadCalls = TMCounter()
            let downloadProvider = Self.provider(box, calls: downloadCalls)
            let downloader = try OSSClient(
                endpoint: server.endpoint, credentialProvider: downloadProvider, configuration: client.configuration)
            let destination = scratch.file("copy.bin")
            var download = OSSResumableDownloadRequest(
                bucketName: "bkt", objectKey: "expiring.bin", downloadToFileURL: destination, partSize: tmPartSize,
                threadNum: Self.threads, recordDirectoryPath: scratch.recordDirectory)
            download.downloadProgress = Self.expiry(of: server, afterParts: 1)
            do {
                _ = try await downloader.resumableDownload(download)
                try await downloader.shutdown()
            } catch {
                try? await downloader.shutdown()
                throw error
            }
            #expect(Array(try Data(contentsOf: destination)) == bytes)
            #expect(downloadCalls.value == 2)
            let down = await server.stats()
            let refetched = down[.getObject].requests - Int64(Self.parts)
            #expect(refetched >= 1)
            #expect(refetched <= Int64(Self.threads))
            print("EXPIRY upload fetches=\(uploadCalls.value) parts=\(Self.parts) resent=\(resent); "
                + "download fetches=\(downloadCalls.value) refetched=\(refetched); threads=\(Self.threads)")
        }
    }

    struct RefreshDenied: Error, Sendable {}

    @Test("a refresh that fails ends the upload with a typed error and keeps the record; the next call resumes")
    func failedRefreshKeepsTheRecord() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.parts * Int(tmPartSize) - 321, seed: 96)
        let source = try scratch.write(bytes, to: "source.bin")
        let box = TMServerBox()
        let calls = TMCounter()
        let provider = Self.provider(box, calls: calls, failure: RefreshDenied())
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "denied.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: Self.threads, recordDirectoryPath: scratch.recordDirectory)
            // The credentials expire once the first part is confirmed (not after a time, which a loaded machine can
            // overrun before the upload even began: CI once saw the Initiate refused, and no record to keep).
            var failing = request
            failing.uploadProgress = Self.expiry(of: server, afterParts: 1)
            let error = await thrownClientError { _ = try await client.resumableUpload(failing) }
            #expect(error?.code == .signFailed)
            #expect(error?.underlying is RefreshDenied)
            // The record and the upload are kept.
            #expect(scratch.records().count == 1)
            // It stopped midway: the server holds fewer parts than the file has (requests rejected after the
            // expiry count as requests, so the parts stored are what tells).
            let stored = try await withClient(of: server, server.credentials.provider, client.configuration) { _, admin in
                let uploads = try await admin.listMultipartUploads(OSSListMultipartUploadsRequest(bucketName: "bkt"))
                let upload = try #require(uploads.uploads.first { $0.objectKey == "denied.bin" })
                return try await admin.listParts(
                    OSSListPartsRequest(bucketName: "bkt", objectKey: "denied.bin", uploadId: upload.uploadId)).parts.count
            }
            #expect(stored < Self.parts)
            let first = await server.stats()[.uploadPart].requests

            // A later call with working credentials resumes: it sends only the parts the server does not have.
            let resumed = try await withClient(of: server, server.credentials.provider, client.configuration) { _, again in
                try await again.resumableUpload(request)
            }
            #expect(resumed.crc64 == CRC64.checksum(bytes))
            let total = await server.stats()[.uploadPart].requests
            // Sent twice at most: the parts the expired credentials had in flight.
            #expect(total - Int64(Self.parts) <= Int64(Self.threads))
            #expect(scratch.records().isEmpty)
            print("EXPIRY refresh-failed first-run parts=\(first) total=\(total) parts=\(Self.parts)")
        }
    }

    @Test(
        "a download whose credentials run out keeps its bytes and record; a call with fresh credentials resumes",
        arguments: [true, false])
    func downloadKeepsItsBytesWhenCredentialsRunOut(refreshFails: Bool) async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.parts * Int(tmPartSize) - 321, seed: 97)
        let box = TMServerBox()
        // Two lives of one server over one data directory: the failing run talks to the first, the resume to the
        // second, which counts only what the resume asks for. A GET of the failing run written before URLSession's
        // asynchronous cancel took it back reaches no counter of the second (a loaded URLSession run once counted
        // one against the resume).
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("aliyun-oss-ec-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        var serverConfiguration = LocalOSSServerConfiguration(
            stsCredentials: [TMCredentials.first, TMCredentials.second], buckets: ["bkt"])
        serverConfiguration.dataDirectory = data
        let destination = scratch.file("copy.bin")
        let download = OSSResumableDownloadRequest(
            bucketName: "bkt", objectKey: "dl.bin", downloadToFileURL: destination, partSize: tmPartSize,
            threadNum: Self.threads, recordDirectoryPath: scratch.recordDirectory)
        try await withLocalOSSServer(serverConfiguration) { server in
            box.set(server)
            let owner = try OSSClient(
                endpoint: server.endpoint, credentialProvider: server.credentials.provider,
                configuration: testClientConfiguration())
            _ = try await owner.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "dl.bin", data: Data(bytes)))
            try await owner.shutdown()
            // Credentials from a refreshing provider whose refresh then fails, or static ones (as a CLI given STS
            // credentials in its environment has), that the server refuses as expired once three parts are on disk
            // (not after a time: four-second credentials once ran out on a loaded machine before any part was).
            let provider: any OSSCredentialProvider =
                refreshFails
                ? Self.provider(box, calls: TMCounter(), failure: RefreshDenied())
                : {
                    let issued = server.issueTemporaryCredentials(lifetime: .seconds(3600))
                    return OSSStsCredentialProvider(
                        accessKeyId: issued.accessKeyId, accessKeySecret: issued.accessKeySecret,
                        securityToken: issued.securityToken)
                }()
            var configuration = testClientConfiguration()
            configuration.retry.maxRetryCount = 0
            var failing = download
            failing.downloadProgress = Self.expiry(of: server, afterParts: Self.threads)
            let expiring = try OSSClient(endpoint: server.endpoint, credentialProvider: provider, configuration: configuration)
            var failure: (any Error)?
            do {
                _ = try await expiring.resumableDownload(failing)
            } catch {
                failure = error
            }
            try? await expiring.shutdown()
            if refreshFails {
                #expect((failure as? OSSClientError)?.code == .signFailed, "\(String(describing: failure))")
            } else {
                #expect((failure as? OSSServerError)?.code == "SecurityTokenExpired", "\(String(describing: failure))")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: destination.path))
        #expect(scratch.records().count == 1, "the record is kept")

        try await withLocalOSSServer(serverConfiguration) { server in
            try await withClient(of: server, server.credentials.provider, testClientConfiguration()) { _, client in
                let resumed = try await client.resumableDownload(download)
                #expect(Array(try Data(contentsOf: destination)) == bytes)
                #expect(resumed.resumedBytes >= Int64(Self.threads) * tmPartSize, "the parts already on disk were kept")
                #expect(await server.stats()[.getObject].responseBodyBytes == Int64(bytes.count) - resumed.resumedBytes)
                print("EXPIRY download refreshFails=\(refreshFails) resumedBytes=\(resumed.resumedBytes) "
                    + "of \(bytes.count) parts=\(Self.parts) expiredAfter=\(Self.threads)")
            }
        }
    }
}
