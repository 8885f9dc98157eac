import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSCRC64
import OSSLocalServer
import OSSTestSupport
import Testing

/// `OSSRemoteSignerCredentialProvider` talking HTTP to an app server on loopback (`LocalHTTPServer` answering with
/// `OSSRemoteSigningAuthority.respond`), which holds the local OSS server's temporary credentials and signs only
/// objects under `users/alice/`: V4 and V1 resumable uploads and presigned GETs, refusals outside the policy, and the
/// identity refreshed after the server's token is revoked.
@Suite("Remote signing (V1 and V4)")
struct RemoteSignerTests {
    /// The app server's credentials: the local OSS server's temporary credentials, issued again once revoked.
    final class ServerCredentials: OSSCredentialProvider {
        let box: TMServerBox
        private let current = NIOLockedValueBox<LocalOSSTemporaryCredential?>(nil)
        let issued = NIOLockedValueBox(0)

        init(_ box: TMServerBox) { self.box = box }

        func credentials() async throws -> OSSCredentials {
            guard let server = box.server else { throw OSSClientError(.signFailed, "no server yet") }
            return current.withLockedValue { current in
                if let credential = current,
                    let known = server.temporaryCredential(accessKeyId: credential.accessKeyId), known.expiration > Date()
                {
                    return credential.credentials
                }
                let fresh = server.issueTemporaryCredentials(lifetime: .seconds(3600))
                issued.withLockedValue { $0 += 1 }
                current = fresh
                return fresh.credentials
            }
        }
    }

    /// The app server: the authority behind `GET/POST /sign`, counting what it answered.
    struct AppServer {
        let http: LocalHTTPServer
        let credentials: ServerCredentials
        let refusals: NIOLockedValueBox<[String]>

        var url: URL { http.url.appendingPathComponent("sign") }

        static func start(_ box: TMServerBox, policy: OSSRemoteSigningAuthority.Policy) async throws -> AppServer {
            let credentials = ServerCredentials(box)
            let authority = OSSRemoteSigningAuthority(credentials: credentials, region: "cn-hangzhou", policy: policy)
            let refusals = NIOLockedValueBox<[String]>([])
            let http = try await LocalHTTPServer.start { request in
                guard request.uri == "/sign" else { return .init(status: 404) }
                let answer = await authority.respond(method: request.method, body: request.body)
                if answer.status == 403 {
                    refusals.withLockedValue { $0.append(String(decoding: answer.body, as: UTF8.self)) }
                }
                return .init(status: answer.status, body: answer.body)
            }
            return AppServer(http: http, credentials: credentials, refusals: refusals)
        }
    }

    static let policy = OSSRemoteSigningAuthority.Policy(bucket: "bkt", keyPrefix: "users/alice/")

    func withRemoteSigner(
        _ version: OSSSignatureVersion, _ body: (LocalOSSServer, OSSClient, AppServer) async throws -> Void
    ) async throws {
        let box = TMServerBox()
        let app = try await AppServer.start(box, policy: Self.policy)
        defer { Task { try? await app.http.shutdown() } }
        let provider = OSSRemoteSignerCredentialProvider(url: app.url, headers: ["Authorization": "Bearer alice-session"])
        try await withTMServer { server, _ in
            box.set(server)
            var configuration = OSSClientConfiguration(region: "cn-hangzhou", signatureVersion: version)
            configuration.retry = .init(maxRetryCount: 3, baseDelay: .milliseconds(1), maxDelay: .milliseconds(5))
            configuration.transport = transportUnderTest
            try await withClient(of: server, provider, configuration) { server, client in
                try await body(server, client, app)
            }
        }
    }

    @Test("a resumable upload and a presigned GET signed remotely; a key outside the prefix refused", arguments: [OSSSignatureVersion.v4, .v1])
    func uploadAndPresignedGet(version: OSSSignatureVersion) async throws {
        try await withRemoteSigner(version) { server, client, app in
            let scratch = try TMScratch()
            defer { scratch.cleanup() }
            let bytes = patternBytes(3 * Int(tmPartSize) + 99, seed: 7)
            let source = try scratch.write(bytes, to: "source.bin")
            let request = OSSResumableUploadRequest(
                bucketName: "bkt", objectKey: "users/alice/photo.bin", uploadingFileURL: source, partSize: tmPartSize,
                threadNum: 2, recordDirectoryPath: scratch.recordDirectory)
            let result = try await client.resumableUpload(request)
            #expect(result.crc64 == CRC64.checksum(bytes))
            #expect(app.refusals.withLockedValue { $0 }.isEmpty, "\(app.refusals.withLockedValue { $0 })")

            let url = try await client.presignConstrainURL(bucket: "bkt", key: "users/alice/photo.bin", expiration: 600)
            #expect(url.contains(version == .v4 ? "x-oss-signature=" : "Signature="))
            #expect(url.contains(version == .v4 ? "x-oss-security-token=" : "security-token="))
            let (status, body) = try await PresignTests().send("GET", url)
            #expect(status == 200 && body == bytes)

            // Outside the prefix: neither a request nor a URL is signed.
            let put = await thrownClientError {
                _ = try await client.putObject(
                    OSSPutObjectRequest(bucketName: "bkt", objectKey: "users/bob/x.txt", data: Data("x".utf8)))
            }
            #expect(put?.code == .signFailed)
            #expect(put?.message.contains("refused to sign (HTTP 403: the signing policy refuses: the key users/bob/x.txt outside users/alice/)") == true, "\(String(describing: put))")
            let presign = await thrownClientError {
                _ = try await client.presignConstrainURL(bucket: "bkt", key: "users/bob/x.txt", expiration: 600)
            }
            #expect(presign?.code == .signFailed)
            let long = await thrownClientError {
                _ = try await client.presignConstrainURL(bucket: "bkt", key: "users/alice/photo.bin", expiration: 7200)
            }
            #expect(long?.message.contains("presigned URL") == true, "\(String(describing: long))")
            let list = await thrownClientError { _ = try await client.listObjectsV2(OSSListObjectsV2Request(bucketName: "bkt")) }
            #expect(list?.message.contains("a bucket-level request") == true, "\(String(describing: list))")
            // A listing of the user's own prefix: V4 signs its prefix, so it is allowed; V1 does not, so it is not.
            let own = OSSListObjectsV2Request(bucketName: "bkt", prefix: "users/alice/")
            if version == .v4 {
                #expect(try await client.listObjectsV2(own).contents.map(\.objectKey) == ["users/alice/photo.bin"])
            } else {
                let refused = await thrownClientError { _ = try await client.listObjectsV2(own) }
                #expect(refused?.message.contains("a bucket-level request") == true, "\(String(describing: refused))")
            }
            #expect(await server.stats()[.putObject].requests == 0, "nothing refused reached OSS")
        }
    }

    @Test("directory transfers signed remotely (V4): a tree up and down under the prefix; another user's prefix refused")
    func directoryTransfers() async throws {
        try await withRemoteSigner(.v4) { server, client, app in
            let scratch = try BatchScratch()
            defer { scratch.cleanup() }
            let files: [String: [UInt8]] = [
                "a b.txt": Array("space".utf8), "sub/deep.bin": patternBytes(5000, seed: 3),
                "big.bin": patternBytes(350_000, seed: 4),
            ]
            for (path, bytes) in files { try scratch.write(path, bytes) }
            var options = OSSDirectoryTransferOptions()
            options.singleRequestThreshold = 200_000
            options.partSize = batchPartSize
            let manager = OSSTransferManager(client: client, recordDirectoryPath: scratch.records)
            let up = try await manager.uploadDirectory(scratch.source, toBucket: "bkt", prefix: "users/alice/album/", options: options)
            let uploaded = try await up.result()
            #expect(uploaded.counts.uploaded == 3 && uploaded.counts.failed == 0, "\(uploaded)")
            #expect(await server.stats()[.uploadPart].requests == 4, "big.bin in four parts")
            let down = try await manager.downloadDirectory(
                fromBucket: "bkt", prefix: "users/alice/album/", to: scratch.destination, options: options)
            let downloaded = try await down.result()
            #expect(downloaded.counts.downloaded == 3 && downloaded.counts.failed == 0, "\(downloaded)")
            for (path, bytes) in files {
                #expect(Array(try Data(contentsOf: scratch.destination.appendingPathComponent(path))) == bytes, "\(path)")
            }
            #expect(app.refusals.withLockedValue { $0 }.isEmpty, "\(app.refusals.withLockedValue { $0 })")

            // Another user's prefix: the listing is refused, so nothing is listed or fetched.
            let listed = await server.stats()[.listObjectsV2].requests
            let error = await thrownClientError {
                let other = try await manager.downloadDirectory(
                    fromBucket: "bkt", prefix: "users/bob/", to: scratch.root.appendingPathComponent("bob"), options: options)
                _ = try await other.result()
            }
            #expect("\(String(describing: error))".contains("a listing of prefix users/bob/, not under users/alice/"), "\(String(describing: error))")
            #expect(await server.stats()[.listObjectsV2].requests == listed)
        }
    }

    @Test("a background upload and download (the simulated task system) through presigned URLs the remote signer signs")
    func backgroundTransfers() async throws {
        try await withRemoteSigner(.v4) { server, client, app in
            let work = try BackgroundTransferServiceTests.scratch()
            defer { try? FileManager.default.removeItem(at: work) }
            let bytes = patternBytes(700_000, seed: 9)
            let file = work.appendingPathComponent("bg.bin")
            try Data(bytes).write(to: file)
            // The URLs live no longer than the signing policy allows (an hour by default).
            let service = OSSBackgroundTransferService(
                client: client,
                system: OSSSimulatedTaskSystem(spoolDirectory: work.appendingPathComponent("spool").path, sessionIdentifier: "signer"),
                recordDirectoryPath: work.appendingPathComponent("records").path, urlLifetime: 1800)
            _ = try await service.startUpload(
                OSSBackgroundUploadRequest(bucketName: "bkt", objectKey: "users/alice/bg.bin", uploadingFileURL: file, partSize: 200_000))
            try await BackgroundLongNameTests.drive(service, work, "signer")
            #expect(await server.stats()[.uploadPart].requests == 4)
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: "bkt", objectKey: "users/alice/bg.bin"))
            #expect(head.crc64 == CRC64.checksum(bytes), "\(head)")

            let copy = work.appendingPathComponent("copy.bin")
            _ = try await service.startDownload(
                OSSBackgroundDownloadRequest(bucketName: "bkt", objectKey: "users/alice/bg.bin", downloadToFileURL: copy, partSize: 200_000))
            try await BackgroundLongNameTests.drive(service, work, "signer")
            #expect(Array(try Data(contentsOf: copy)) == bytes)
            #expect(app.refusals.withLockedValue { $0 }.isEmpty, "\(app.refusals.withLockedValue { $0 })")
        }
    }

    @Test("the identity is fetched again when OSS rejects the server's revoked token, mid-upload")
    func identityRefreshedAfterRevocation() async throws {
        try await withRemoteSigner(.v4) { server, client, app in
            try await RejectionRefreshTests.uploadAcrossARevocation(server, client, key: "users/alice/revoked.bin")
            #expect(app.credentials.issued.withLockedValue { $0 } == 2)
        }
    }

    @Test("the authority signs nothing it cannot read: a string to sign that is not the canonical request's hash, a foreign scope, an old date")
    func authorityIsNotAnOracle() async throws {
        let credentials = OSSStaticCredentialProvider(accessKeyId: "AKID", accessKeySecret: "secret")
        let authority = OSSRemoteSigningAuthority(credentials: credentials, region: "cn-hangzhou", policy: Self.policy)
        let now = Date()
        func pending(key: String, date: Date = now, region: String = "cn-hangzhou", method: String = "PUT") throws -> OSSPendingSignature {
            var request = OSSSignableRequest(method: method, bucket: "bkt", key: key, query: [:], headers: [:])
            return try OSSSignerV4(region: region).prepareSigning(&request, accessKeyId: "AKID", securityToken: nil, date: date)
        }
        func refusal(_ request: OSSRemoteSigningRequest) async -> String? {
            await thrownClientError { _ = try await authority.sign(request, now: now) }?.message
        }
        let good = try pending(key: "users/alice/a")
        let signature = try await authority.sign(
            OSSRemoteSigningRequest(signatureVersion: "v4", stringToSign: good.stringToSign, canonicalRequest: good.canonicalRequest),
            now: now)
        #expect(signature == OSSSignerV4.signature(for: good, secret: "secret"))
        // The canonical request of an allowed key with the string to sign of another one.
        let other = try pending(key: "users/bob/a")
        #expect(
            await refusal(.init(signatureVersion: "v4", stringToSign: other.stringToSign, canonicalRequest: good.canonicalRequest))?
                .contains("not the hash of the canonical request") == true)
        #expect(await refusal(.init(signatureVersion: "v4", stringToSign: other.stringToSign, canonicalRequest: other.canonicalRequest))?.contains("outside users/alice/") == true)
        let foreign = try pending(key: "users/alice/a", region: "us-west-1")
        #expect(await refusal(.init(signatureVersion: "v4", stringToSign: foreign.stringToSign, canonicalRequest: foreign.canonicalRequest))?.contains("is not this server's") == true)
        let old = try pending(key: "users/alice/a", date: now.addingTimeInterval(-3600))
        #expect(await refusal(.init(signatureVersion: "v4", stringToSign: old.stringToSign, canonicalRequest: old.canonicalRequest))?.contains("dated -3600 s") == true)
        let patch = try pending(key: "users/alice/a", method: "PATCH")
        #expect(await refusal(.init(signatureVersion: "v4", stringToSign: patch.stringToSign, canonicalRequest: patch.canonicalRequest))?.contains("the method PATCH") == true)
        var acl = OSSSignableRequest(method: "PUT", bucket: "bkt", key: "users/alice/a", query: ["acl": ""], headers: ["x-oss-object-acl": "public-read"])
        let aclPending = OSSSignerV1().prepareSigning(&acl, accessKeyId: "AKID", securityToken: nil, date: now)
        #expect(await refusal(.init(signatureVersion: "v1", stringToSign: aclPending.stringToSign, canonicalRequest: nil))?.contains("the query parameter acl") == true)
        var copy = OSSSignableRequest(method: "PUT", bucket: "bkt", key: "users/alice/copy", query: [:], headers: ["x-oss-copy-source": "/bkt/users/bob/secret"])
        let copyPending = OSSSignerV1().prepareSigning(&copy, accessKeyId: "AKID", securityToken: nil, date: now)
        #expect(await refusal(.init(signatureVersion: "v1", stringToSign: copyPending.stringToSign, canonicalRequest: nil))?.contains("outside users/alice/") == true)
        let answer = await authority.respond(method: "POST", body: Data("{}".utf8))
        #expect(answer.status == 400)
    }
}
