import AliyunOSS
import Foundation
import OSSLocalServer
import Testing

/// `OSSAuthServerCredentialProvider` against an STS-style token service on 127.0.0.1 and the local server
/// accepting the temporary credentials it hands out.
@Suite struct AuthServerCredentialTests {
    static let sts = OSSCredentials(
        accessKeyId: "STS.AuthServerKey", accessKeySecret: "AuthServerSecret", securityToken: "CAIS+auth/server=")

    static func tokenJSON(expiresIn seconds: TimeInterval, status: Any = 200) -> Data {
        let formatter = ISO8601DateFormatter()
        let object: [String: Any] = [
            "StatusCode": status, "AccessKeyId": sts.accessKeyId, "AccessKeySecret": sts.accessKeySecret,
            "SecurityToken": sts.securityToken ?? "", "Expiration": formatter.string(from: Date().addingTimeInterval(seconds)),
        ]
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
    }

    func withSTSClient<T: Sendable>(
        _ reply: @escaping @Sendable (LocalHTTPServer.Request) -> LocalHTTPServer.Response,
        _ body: (RecordingHTTPServer, OSSAuthServerCredentialProvider, OSSClient) async throws -> T
    ) async throws -> T {
        try await withRecordingHTTPServer(reply) { tokens in
            try await withLocalOSSServer(.init(stsCredentials: [Self.sts], buckets: ["bkt"])) { server in
                let provider = OSSAuthServerCredentialProvider(url: tokens.server.url.appendingPathComponent("sts"))
                var configuration = OSSClientConfiguration()
                configuration.retry = .init(maxRetryCount: 1, baseDelay: .milliseconds(1), maxDelay: .milliseconds(2))
                let client = try OSSClient(endpoint: server.endpoint, credentialProvider: provider, configuration: configuration)
                do {
                    let result = try await body(tokens, provider, client)
                    try await client.shutdown()
                    return result
                } catch {
                    try? await client.shutdown()
                    throw error
                }
            }
        }
    }

    @Test func fetchesCachesAndSignsWithTheToken() async throws {
        try await withSTSClient({ _ in .init(body: Self.tokenJSON(expiresIn: 3600)) }) { tokens, provider, client in
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "sts.txt", data: Data("s".utf8)))
            let got = try await client.getObject(OSSGetObjectRequest(bucketName: "bkt", objectKey: "sts.txt"))
            #expect(got.content == Data("s".utf8))
            #expect(tokens.requests.count == 1, "cached until shortly before it expires")
            #expect(tokens.requests.first?.method == "GET")
            #expect(tokens.requests.first?.uri == "/sts")
            #expect(await provider.fetchCount == 1)
        }
    }

    @Test func refreshesBeforeExpiry() async throws {
        // Living 20 seconds, shorter than the 5-minute refresh window: used for half its lifetime (not fetched
        // for every request), then fetched again before it expires. (Four seconds were once overrun by two PUTs on
        // a loaded CI machine: the margins are now seconds, not milliseconds.)
        try await withSTSClient({ _ in .init(body: Self.tokenJSON(expiresIn: 20)) }) { tokens, _, client in
            let fetched = ContinuousClock.now
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "a", data: Data("a".utf8)))
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "b", data: Data("b".utf8)))
            #expect(tokens.requests.count == 1)
            try await Task.sleep(until: fetched + .seconds(14), clock: .continuous)
            _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "c", data: Data("c".utf8)))
            #expect(tokens.requests.count == 2)
        }
    }

    @Test func statusCodeAsStringIsAccepted() async throws {
        try await withSTSClient({ _ in .init(body: Self.tokenJSON(expiresIn: 3600, status: "200")) }) { _, provider, _ in
            let credentials = try await provider.credentials()
            #expect(credentials.accessKeyId == Self.sts.accessKeyId)
            #expect(credentials.securityToken == Self.sts.securityToken)
        }
    }

    @Test func errorsAreTypedAndNeverCarryTheSecret() async throws {
        let cases: [(LocalHTTPServer.Response, String)] = [
            (.init(body: Self.tokenJSON(expiresIn: 3600, status: 403)), "StatusCode 403"),
            (.init(body: Data("{not json".utf8)), "not valid JSON"),
            (.init(body: Data(#"{"StatusCode":200,"AccessKeyId":"k"}"#.utf8)), "lacks"),
            (.init(body: Data(#"{"StatusCode":200,"AccessKeyId":"k","AccessKeySecret":"s","Expiration":"soon"}"#.utf8)), "ISO 8601"),
            (.init(status: 500, body: Data()), "HTTP 500"),
        ]
        for (reply, expected) in cases {
            try await withSTSClient({ _ in reply }) { _, provider, client in
                do {
                    _ = try await provider.credentials()
                    Issue.record("no error for \(expected)")
                } catch let error as OSSClientError {
                    #expect(error.code == .signFailed || error.code == .networkError)
                    #expect("\(error)".contains(expected), "\(error)")
                    #expect(!"\(error)".contains(Self.sts.accessKeySecret))
                }
                let failed = await clientErrorCode {
                    _ = try await client.putObject(OSSPutObjectRequest(bucketName: "bkt", objectKey: "x", data: Data()))
                }
                #expect(failed == .signFailed)
            }
        }
    }
}
