import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

/// Credentials the server rejects mid-transfer are refreshed once, shared by concurrent requests, and only the
/// rejected requests are sent again.
@Suite("Credential refresh on rejection")
struct CredentialRefreshTests {
    static let size = 8 * Int(tmPartSize) + 5_000  // 9 parts

    @Test("a token the server rejects is refreshed once; the resumable upload completes")
    func staleTokenRefreshedOnce() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 81)
        let source = try scratch.write(bytes, to: "source.bin")
        let calls = TMCounter()
        let provider = OSSRefreshingCredentialProvider {
            // First a token the server does not accept, then a valid one.
            calls.next() == 1 ? TMCredentials.token(TMCredentials.staleToken) : TMCredentials.token(TMCredentials.first)
        }
        try await withTMServer(provider: provider) { server, client in
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "stale.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: 4, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(calls.value == 2)
            #expect(await provider.fetchCount == 2)
            let stats = await server.stats()
            // Only the first request (Initiate) was rejected and sent again; every part went once.
            #expect(stats[.initiateMultipartUpload].requests == 2)
            #expect(stats[.uploadPart].requests == 9)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "stale.bin"))
            #expect(head.crc64 == CRC64.checksum(bytes))
        }
    }

    @Test("parts rejected together (SecurityTokenExpired) share one refresh; only they are retried")
    func concurrentRejectionsShareOneRefresh() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(Self.size, seed: 82)
        let source = try scratch.write(bytes, to: "source.bin")
        let calls = TMCounter()
        // The server says the first three parts' token expired (as when it expires server-side while the client's
        // cache still thinks it valid).
        let rejection = LocalOSSFaultRule(
            operation: .uploadPart, action: .status(403, code: "SecurityTokenExpired"), times: 3)
        let serverBox = TMServerBox()
        let provider = OSSRefreshingCredentialProvider {
            if calls.next() == 1 { return TMCredentials.token(TMCredentials.first) }
            // Hold the refresh until all three parts in flight were rejected, so every rejection carries the
            // first credentials (the case the coalescing is for) whatever the scheduling.
            for _ in 0..<1000 {
                if let server = serverBox.server, await server.stats().faultsInjected >= 3 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            return TMCredentials.token(TMCredentials.second)
        }
        try await withTMServer(provider: provider, faults: [rejection]) { server, client in
            serverBox.set(server)
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "expired.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: 3, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            let stats = await server.stats()
            #expect(stats.faultsInjected == 3)
            // One refresh for three rejections.
            #expect(calls.value == 2)
            #expect(await provider.fetchCount == 2)
            // Nine parts, plus exactly the three rejected ones again.
            #expect(stats[.uploadPart].requests == 9 + 3)
            #expect(stats[.initiateMultipartUpload].requests == 1)
            let object = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "expired.bin"))
            #expect(Array(try #require(object.content)) == bytes)
        }
    }

    @Test("a request is retried once only: credentials still rejected after the refresh fail with the 403")
    func stillRejectedAfterRefresh() async throws {
        let calls = TMCounter()
        let provider = OSSRefreshingCredentialProvider {
            _ = calls.next()
            return TMCredentials.token(TMCredentials.staleToken)
        }
        try await withTMServer(provider: provider) { server, client in
            let error = await serverErrorOf {
                _ = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("hello".utf8)))
            }
            #expect(error?.statusCode == 403)
            #expect(error?.code == "InvalidSecurityToken")
            #expect(calls.value == 2)
            #expect(await server.stats()[.putObject].requests == 2)
        }
    }

    @Test("a fixed STS provider is not retried on rejection")
    func fixedProviderNotRetried() async throws {
        try await withTMServer(provider: TMCredentials.staleToken.provider) { server, client in
            let error = await serverErrorOf {
                _ = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("hello".utf8)))
            }
            #expect(error?.code == "InvalidSecurityToken")
            #expect(await server.stats()[.putObject].requests == 1)
        }
    }

    @Test("an unknown access key id (InvalidAccessKeyId) is refreshed too; a plain AccessDenied is not")
    func rejectionCodes() async throws {
        let calls = TMCounter()
        let unknown = OSSCredentials(accessKeyId: "STS.Unknown", accessKeySecret: "x", securityToken: "t")
        let provider = OSSRefreshingCredentialProvider {
            calls.next() == 1 ? TMCredentials.token(unknown) : TMCredentials.token(TMCredentials.second)
        }
        try await withTMServer(provider: provider) { server, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("a".utf8)))
            #expect(calls.value == 2)
            #expect(await server.stats()[.putObject].requests == 2)
            // A permission problem is not a credential problem: no refresh, no retry.
            await server.addFault(
                LocalOSSFaultRule(operation: .putObject, action: .status(403, code: "AccessDenied"), times: 1))
            let error = await serverErrorOf {
                _ = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "bkt", objectKey: "k", data: Data("b".utf8)))
            }
            #expect(error?.code == "AccessDenied")
            #expect(calls.value == 2)
            #expect(await server.stats()[.putObject].requests == 3)
        }
    }
}

/// Lets a credential closure created before the server started look at the server.
final class TMServerBox: Sendable {
    private let box = NIOLockedValueBox<LocalOSSServer?>(nil)
    func set(_ server: LocalOSSServer) { box.withLockedValue { $0 = server } }
    var server: LocalOSSServer? { box.withLockedValue { $0 } }
}

/// The OSSServerError thrown by `body`, recording an issue when it throws something else or nothing.
func serverErrorOf(_ body: () async throws -> Void) async -> OSSServerError? {
    do {
        try await body()
        Issue.record("expected an OSSServerError, got success")
        return nil
    } catch let error as OSSServerError {
        return error
    } catch {
        Issue.record("expected an OSSServerError, got \(error)")
        return nil
    }
}

@Suite("Short-lived STS credentials")
struct ShortLivedCredentialTests {
    @Test("credentials that expire during an upload are replaced before expiry; no request is rejected")
    func expiresMidUpload() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(5 * Int(tmPartSize), seed: 83)
        let source = try scratch.write(bytes, to: "source.bin")
        let calls = TMCounter()
        // One-second credentials, replaced only once they expired (no refresh ahead).
        let provider = OSSRefreshingCredentialProvider(refreshAhead: .zero) {
            let credentials = calls.next() == 1 ? TMCredentials.first : TMCredentials.second
            return OSSFederationToken(
                accessKeyId: credentials.accessKeyId, accessKeySecret: credentials.accessKeySecret,
                securityToken: credentials.securityToken, expiration: Date().addingTimeInterval(1))
        }
        // Each part takes at least 400 ms, one at a time: the upload outlives the first credentials.
        let slow = LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 400))
        try await withTMServer(provider: provider, faults: [slow]) { server, client in
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "short.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: 1, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(calls.value >= 2)
            #expect(await provider.fetchCount == calls.value)
            let stats = await server.stats()
            #expect(stats[.uploadPart].requests == 5)
            #expect(stats.faultsInjected == 5)
        }
    }
}
