import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// Every refreshing provider, not only the closure-based one: credentials that still look fresh (an hour left) but
/// that the server stops accepting in the middle of a multipart upload (``LocalOSSServer/expireTemporaryCredentials()``
/// after the first part, as a request delayed past the expiry would meet) are fetched again once and the refused part
/// is re-signed, so the upload completes.
@Suite("Credentials refreshed after a rejection, for every provider")
struct RejectionRefreshTests {
    /// Uploads 4 parts through `client` one at a time, the server expiring every temporary credential once the first
    /// part is confirmed; the upload must complete.
    static func uploadAcrossARevocation(
        _ server: LocalOSSServer, _ client: OSSClient, key: String,
        afterExpiry: @escaping @Sendable () -> Void = {}
    ) async throws {
        let scratch = try TMScratch()
        defer { scratch.cleanup() }
        let bytes = patternBytes(4 * Int(tmPartSize) - 17, seed: UInt64(key.utf8.count))
        let source = try scratch.write(bytes, to: "source.bin")
        var request = OSSResumableUploadRequest(
            bucketName: "bkt", objectKey: key, uploadingFileURL: source, partSize: tmPartSize, threadNum: 1,
            recordDirectoryPath: scratch.recordDirectory)
        let expired = NIOLockedValueBox(false)
        request.uploadProgress = { _, total, _ in
            guard total >= tmPartSize else { return }
            let first = expired.withLockedValue { done in
                defer { done = true }
                return !done
            }
            if first {
                server.expireTemporaryCredentials()
                afterExpiry()
            }
        }
        let result = try await client.resumableUpload(request)
        #expect(result.crc64 == CRC64.checksum(bytes))
        #expect(expired.withLockedValue { $0 }, "the credentials were expired midway")
    }

    /// A metadata service for role `oss-app` handing out hour-long credentials of the server in `box`.
    static func metadataService(_ box: TMServerBox) async throws -> LocalECSMetadataService {
        try await LocalECSMetadataService.start(roleName: "oss-app") {
            box.server?.issueTemporaryCredentials(lifetime: .seconds(3600))
        }
    }

    /// A credentials URI handing out hour-long credentials of the server in `box`.
    static func credentialsURI(_ box: TMServerBox) async throws -> LocalHTTPServer {
        try await LocalHTTPServer.start { _ in
            guard let credential = box.server?.issueTemporaryCredentials(lifetime: .seconds(3600)) else {
                return .init(status: 503)
            }
            return .init(body: sessionCredentialsJSON(credential))
        }
    }

    @Test("the ECS RAM role provider")
    func ecsRAMRole() async throws {
        let box = TMServerBox()
        let metadata = try await Self.metadataService(box)
        defer { Task { try? await metadata.shutdown() } }
        let provider = try OSSECSRAMRoleCredentialProvider(
            metadataEndpoint: metadata.url, timeout: ECSRAMRoleProviderTests.timeout, environment: [:])
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "ecs.bin")
        }
        #expect(await provider.fetchCount == 2)
    }

    @Test("the credentials URI provider")
    func credentialsURIProvider() async throws {
        let box = TMServerBox()
        let endpoint = try await Self.credentialsURI(box)
        defer { Task { try? await endpoint.shutdown() } }
        let provider = try OSSURICredentialProvider(uri: endpoint.url, environment: [:])
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "uri.bin")
        }
        #expect(await provider.fetchCount == 2)
    }

    @Test("the external process provider")
    func externalProcess() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        try await withTMServer { server, _ in
            // The program prints credentials-<run>.json; the second is issued after the first was revoked.
            @Sendable func write(_ index: Int) throws {
                let credential = server.issueTemporaryCredentials(lifetime: .seconds(3600))
                let formatter = ISO8601DateFormatter()
                let json = """
                    {"mode": "StsToken", "access_key_id": "\(credential.accessKeyId)", \
                    "access_key_secret": "\(credential.accessKeySecret)", "sts_token": "\(credential.securityToken)", \
                    "expiration": "\(formatter.string(from: credential.expiration))"}
                    """
                try home.write(json, to: "credentials-\(index).json")
            }
            try write(1)
            let dir = home.root.path
            let program = try home.script(
                "credentials", "n=$(cat '\(dir)/runs' 2>/dev/null || echo 0); n=$((n + 1)); echo $n > '\(dir)/runs'; "
                    + "cat '\(dir)/credentials-'$n.json")
            let provider = try OSSExternalCredentialProvider(command: program)
            var configuration = OSSClientConfiguration(region: "cn-hangzhou")
            configuration.transport = transportUnderTest
            try await withClient(of: server, provider, configuration) { server, client in
                try await Self.uploadAcrossARevocation(server, client, key: "external.bin") { try? write(2) }
            }
            #expect(await provider.fetchCount == 2)
        }
    }

    @Test("a credentials-file profile of type ecs_ram_role, and an aliyun CLI profile of mode EcsRamRole")
    func profiles() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let box = TMServerBox()
        let metadata = try await Self.metadataService(box)
        defer { Task { try? await metadata.shutdown() } }
        try home.writeCredentialsFile("[default]\ntype = ecs_ram_role\nrole_name = oss-app\n")
        try home.writeCLIConfig(current: "ecs", [["name": "ecs", "mode": "EcsRamRole", "ram_role_name": "oss-app"]])
        let environment = home.environment(["ALIBABA_CLOUD_ECS_METADATA_DISABLED": "false"])
        let file = OSSProfileCredentialProvider(metadataEndpoint: metadata.url, environment: environment)
        let cli = try OSSCLIProfileCredentialProvider(metadataEndpoint: metadata.url, environment: environment)
        try await withTMServer(provider: file) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "file-profile.bin")
        }
        #expect(metadata.stats.credentialRequests == 2)
        try await withTMServer(provider: cli) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "cli-profile.bin")
        }
        #expect(metadata.stats.credentialRequests == 4)
    }

    @Test("the default chain refreshes the step that answered (a credentials URI)")
    func defaultChain() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let box = TMServerBox()
        let asked = NIOLockedValueBox(0)
        let counting = try await LocalHTTPServer.start { _ in
            asked.withLockedValue { $0 += 1 }
            guard let credential = box.server?.issueTemporaryCredentials(lifetime: .seconds(3600)) else {
                return .init(status: 503)
            }
            return .init(body: sessionCredentialsJSON(credential))
        }
        defer { Task { try? await counting.shutdown() } }
        let provider = OSSDefaultCredentialProvider(
            environment: home.environment(["ALIBABA_CLOUD_CREDENTIALS_URI": counting.url.absoluteString]))
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "chain.bin")
        }
        #expect(provider.answeredBy == "credentials URI")
        #expect(asked.withLockedValue { $0 } == 2)
    }

    @Test("the default chain answered by the aliyun CLI's current profile (mode EcsRamRole), as oss config writes it")
    func defaultChainCLIProfile() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let box = TMServerBox()
        let metadata = try await Self.metadataService(box)
        defer { Task { try? await metadata.shutdown() } }
        try home.writeCLIConfig(current: "ecs", [["name": "ecs", "mode": "EcsRamRole", "ram_role_name": "oss-app"]])
        let provider = OSSDefaultCredentialProvider(
            environment: home.environment(["ALIBABA_CLOUD_ECS_METADATA_DISABLED": "false"]), metadataEndpoint: metadata.url)
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "chain-cli.bin")
        }
        #expect(provider.answeredBy == "aliyun CLI profile")
        #expect(metadata.stats.credentialRequests == 2)
    }

    @Test("the app-server token provider (OSSAuthServerCredentialProvider)")
    func authServer() async throws {
        let box = TMServerBox()
        let tokens = try await LocalHTTPServer.start { _ in
            guard let credential = box.server?.issueTemporaryCredentials(lifetime: .seconds(3600)) else {
                return .init(status: 503)
            }
            let body: [String: Any] = [
                "StatusCode": 200, "AccessKeyId": credential.accessKeyId, "AccessKeySecret": credential.accessKeySecret,
                "SecurityToken": credential.securityToken,
                "Expiration": ISO8601DateFormatter().string(from: credential.expiration),
            ]
            return .init(body: (try? JSONSerialization.data(withJSONObject: body)) ?? Data())
        }
        defer { Task { try? await tokens.shutdown() } }
        let provider = OSSAuthServerCredentialProvider(url: tokens.url)
        try await withTMServer(provider: provider) { server, client in
            box.set(server)
            try await Self.uploadAcrossARevocation(server, client, key: "auth-server.bin")
        }
        #expect(await provider.fetchCount == 2)
    }
}
