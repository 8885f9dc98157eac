import AliyunOSS
import Foundation
import Hummingbird
import HummingbirdTesting
import OSSCRC64
import OSSLocalServer
import RemoteSigner
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The sample's signing endpoint served live on loopback by Hummingbird, signing with the embedded local OSS server's
/// credentials; a device-side client signs only through ``OSSRemoteSignerCredentialProvider`` over HTTP.
@Suite struct RemoteSignerTests {
    /// The local OSS server, the signer live on a loopback port, and a client whose every signature comes from it
    /// with the session `token`.
    func withDevice(
        version: OSSSignatureVersion = .v4, token: String = "alice-session",
        _ body: @Sendable (LocalOSSServer, OSSClient) async throws -> Void
    ) async throws {
        try await withLocalOSSServer(LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["app"])) { server in
            let signer = RemoteSigner(credentials: server.credentials.provider, region: "cn-hangzhou", bucket: "app") {
                ["alice-session": "alice", "mallory-session": "../bob"][$0]
            }
            let app = Application(router: signer.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(.live) { http in
                let port = try #require(http.port)
                let provider = OSSRemoteSignerCredentialProvider(
                    url: URL(string: "http://127.0.0.1:\(port)/oss-sign")!, headers: ["Authorization": "Bearer \(token)"])
                var configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: version)
                configuration.retry = .init(maxRetryCount: 2, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
                try await withOSSClient(
                    endpoint: server.endpoint.absoluteString, credentialProvider: provider, configuration: configuration
                ) { client in try await body(server, client) }
            }
        }
    }

    @Test("a V4 resumable upload and a presigned GET signed by the sample; a key outside users/alice/ refused")
    func resumableUploadAndPresignedGet() async throws {
        try await withDevice { server, client in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("remote-signer-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let bytes = (0..<(350 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 9) }
            let source = directory.appendingPathComponent("photo.bin")
            try Data(bytes).write(to: source)
            let request = OSSResumableUploadRequest(
                bucketName: "app", objectKey: "users/alice/photo.bin", uploadingFileURL: source, partSize: 100 * 1024,
                threadNum: 2, recordDirectoryPath: directory.path)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(await server.stats()[.uploadPart].requests == 4)

            let url = try await client.presignConstrainURL(bucket: "app", key: "users/alice/photo.bin", expiration: 600)
            #expect(url.contains("x-oss-signature-version=OSS4-HMAC-SHA256") && url.contains("x-oss-signature="))
            let (data, response) = try await URLSession.shared.data(from: URL(string: url)!)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(Array(data) == bytes)

            // Another user's key: the signer refuses, so nothing is sent to OSS and no URL is made.
            let put = await refusal {
                _ = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "app", objectKey: "users/bob/x.txt", data: Data("x".utf8)))
            }
            #expect(put?.code == .signFailed)
            #expect(put?.message.contains("HTTP 403: the signing policy refuses: the key users/bob/x.txt outside users/alice/") == true, "\(String(describing: put))")
            let presign = await refusal {
                _ = try await client.presignConstrainURL(bucket: "app", key: "users/bob/photo.bin", expiration: 600)
            }
            #expect(presign?.message.contains("outside users/alice/") == true, "\(String(describing: presign))")
            let long = await refusal {
                _ = try await client.presignConstrainURL(bucket: "app", key: "users/alice/photo.bin", expiration: 7200)
            }
            #expect(long?.code == .signFailed, "\(String(describing: long))")
            #expect(await server.stats()[.putObject].requests == 0)
        }
    }

    @Test("no session, an unknown one, or a user id that would leave users/: 401, nothing signed")
    func sessionsAreChecked() async throws {
        for token in ["nobody", "mallory-session"] {
            try await withDevice(token: token) { server, client in
                let put = await refusal {
                    _ = try await client.putObject(
                        OSSPutObjectRequest(bucketName: "app", objectKey: "users/alice/x.txt", data: Data("x".utf8)))
                }
                #expect(put?.code == .signFailed)
                #expect(put?.message.contains("HTTP 401") == true, "\(String(describing: put))")
                #expect(await server.stats()[.putObject].requests == 0)
            }
        }
        #expect(RemoteSigner.userPrefix("alice") == "users/alice/")
        #expect(RemoteSigner.userPrefix("../bob") == nil && RemoteSigner.userPrefix("") == nil)
    }

    func refusal(_ body: () async throws -> Void) async -> OSSClientError? {
        do {
            try await body()
            return nil
        } catch let error as OSSClientError {
            return error
        } catch {
            Issue.record("not an OSSClientError: \(error)")
            return nil
        }
    }
}
