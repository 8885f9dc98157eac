import AliyunOSS
import Foundation
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// `OSSECSRAMRoleCredentialProvider` against the loopback stand-in of an instance's metadata service
/// (`LocalECSMetadataService`), whose credentials the local OSS server issued and lets expire: IMDSv2 tokens, the
/// role found by asking, the IMDSv1 fallback and its refusal, a refresh in the middle of a multipart upload, and a
/// service that answers garbage or nothing.
@Suite("ECS RAM role credentials")
struct ECSRAMRoleProviderTests {
    /// The metadata requests' time limit in the tests that are not about it: the 1 s default ran out on a loaded
    /// machine (the token request timed out, the GET without one was refused).
    static let timeout: Duration = .seconds(15)

    /// A metadata service for role `oss-app` whose credentials the server in `box` issues for `lifetime`.
    static func service(_ box: TMServerBox, lifetime: Duration, mode: LocalECSMetadataService.Mode = .normal)
        async throws -> LocalECSMetadataService
    {
        try await LocalECSMetadataService.start(roleName: "oss-app", mode: mode) {
            box.server?.issueTemporaryCredentials(lifetime: lifetime)
        }
    }

    @Test("a multipart upload signed with the instance role's credentials, refreshed midway, IMDSv2 throughout")
    func uploadAcrossARefresh() async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let box = TMServerBox()
        // Two-second credentials: fetched again once half their life has passed, while 300 ms parts still move.
        let metadata = try await Self.service(box, lifetime: .seconds(2), mode: .hardened)
        defer { Task { try? await metadata.shutdown() } }
        let provider = try OSSECSRAMRoleCredentialProvider(
            metadataEndpoint: metadata.url, timeout: Self.timeout, environment: [:])
        let bytes = patternBytes(12 * Int(tmPartSize) - 5, seed: 401)
        let source = try scratch.write(bytes, to: "source.bin")
        let faults = [LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 300))]
        try await withTMServer(provider: provider, faults: faults) { server, client in
            box.set(server)
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "role.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: 2, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
        }
        let stats = metadata.stats
        #expect(stats.credentialRequests >= 2, "the credentials were refreshed during the upload: \(stats)")
        #expect(await provider.fetchCount == stats.credentialRequests)
        #expect(stats.tokensIssued >= stats.credentialRequests, "a session token before every fetch")
        #expect(stats.requestsWithoutToken == 0 && stats.refused == 0, "\(stats)")
        #expect(provider.roleName == nil, "the role was found by asking the service")
    }

    @Test("an older service without tokens: IMDSv1 when allowed, a clear error when disabled")
    func imdsV1FallbackAndItsRefusal() async throws {
        let box = TMServerBox()
        let metadata = try await Self.service(box, lifetime: .seconds(3600), mode: .legacy)
        defer { Task { try? await metadata.shutdown() } }
        try await withTMServer { server, _ in
            box.set(server)
            let lenient = try OSSECSRAMRoleCredentialProvider(
                roleName: "oss-app", metadataEndpoint: metadata.url, timeout: Self.timeout, environment: [:])
            let credentials = try await lenient.credentials()
            #expect(credentials.accessKeyId.hasPrefix("STS."))
            #expect(metadata.stats.requestsWithoutToken == 1)

            let strict = try OSSECSRAMRoleCredentialProvider(
                roleName: "oss-app", metadataEndpoint: metadata.url, timeout: Self.timeout,
                environment: ["ALIBABA_CLOUD_IMDSV1_DISABLED": "true"])
            #expect(strict.disableIMDSv1)
            let error = await thrownClientError { _ = try await strict.credentials() }
            #expect(error?.code == .signFailed)
            #expect(error?.message.contains("IMDSv1 is disabled") == true, "\(String(describing: error))")
            #expect(metadata.stats.requestsWithoutToken == 1, "the strict provider sent nothing without a token")
        }
    }

    @Test("the role from ALIBABA_CLOUD_ECS_METADATA; an unknown role, a disabled service: typed errors, no secret")
    func environmentAndErrors() async throws {
        let box = TMServerBox()
        let metadata = try await Self.service(box, lifetime: .seconds(3600))
        defer { Task { try? await metadata.shutdown() } }
        try await withTMServer { server, _ in
            box.set(server)
            let named = try OSSECSRAMRoleCredentialProvider(
                metadataEndpoint: metadata.url, timeout: Self.timeout, environment: ["ALIBABA_CLOUD_ECS_METADATA": "oss-app"])
            #expect(named.roleName == "oss-app")
            let credentials = try await named.credentials()
            #expect(!"\(named)".contains(credentials.accessKeySecret))

            let unknown = try OSSECSRAMRoleCredentialProvider(
                roleName: "other-role", metadataEndpoint: metadata.url, timeout: Self.timeout, environment: [:])
            let error = await thrownClientError { _ = try await unknown.credentials() }
            #expect(error?.code == .signFailed)
            #expect(error?.message.contains("HTTP 404") == true, "\(String(describing: error))")
        }
        let disabled = await thrownClientError {
            _ = try OSSECSRAMRoleCredentialProvider(environment: ["ALIBABA_CLOUD_ECS_METADATA_DISABLED": "true"])
        }
        #expect(disabled?.code == .invalidArgument)
    }

    @Test("a metadata service that answers garbage or hangs: a typed error naming it, within the timeout")
    func garbageAndHangs() async throws {
        let garbage = try await LocalHTTPServer.start { request in
            request.method == "PUT"
                ? .init(status: 200, contentType: "text/plain", body: Data("token".utf8))
                : .init(status: 200, contentType: "text/plain", body: Data("{\"Code\":\"Success\",\"AccessKeyId\":".utf8))
        }
        let silent = try await LocalHTTPServer.start { _ in .init(status: 200, body: Data(), delay: .seconds(30)) }
        defer {
            Task {
                try? await garbage.shutdown()
                try? await silent.shutdown()
            }
        }
        let broken = try OSSECSRAMRoleCredentialProvider(
            roleName: "r", metadataEndpoint: garbage.url, timeout: Self.timeout, environment: [:])
        let parse = await thrownClientError { _ = try await broken.credentials() }
        #expect(parse?.code == .signFailed)
        #expect(parse?.message.contains("ECS metadata service") == true, "\(String(describing: parse))")

        let hanging = try OSSECSRAMRoleCredentialProvider(
            roleName: "r", metadataEndpoint: silent.url, timeout: .milliseconds(500), environment: [:])
        let started = ContinuousClock.now
        let timedOut = await thrownClientError { _ = try await hanging.credentials() }
        #expect(timedOut?.code == .networkError, "\(String(describing: timedOut))")
        #expect(timedOut?.message.contains("ECS metadata service") == true)
        // A timeout, not a hang: two requests (token, then credentials without one) of 0.5 s each, far below 30 s.
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
