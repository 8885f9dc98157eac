// Uses temporary STS credentials that a closure fetches from your token service, refreshed before they expire.
//
//   swift run refreshing-credentials                      # embedded local server, simulated token service
//   swift run refreshing-credentials --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou \
//       --bucket my-bucket --token-url https://my-app.example.com/oss-sts
//
// The token service answers JSON like Alibaba Cloud STS AssumeRole returns it in `Credentials`:
//   {"AccessKeyId": "STS.…", "AccessKeySecret": "…", "SecurityToken": "…", "Expiration": "2026-11-21T10:00:00Z"}
// Concurrent requests share one refresh; a request rejected because its token expired refreshes once and retries.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@main
struct RefreshingCredentials: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refreshing-credentials", abstract: "Put and get an object with refreshing STS credentials.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint (default: $OSS_ENDPOINT, else an embedded local server).") var endpointOption: String?
    /// The endpoint: --endpoint, else $OSS_ENDPOINT (as the oss CLI reads it), else the embedded local server.
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id (needed for V4). Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    /// The region: --region, else $OSS_REGION (as the oss CLI reads it), else cn-hangzhou.
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name.") var bucket: String = "sts-demo"
    @Option(help: "Object key.") var key: String = "sts/hello.txt"
    @Option(help: "Your STS token service URL (required with --endpoint).") var tokenURL: String?

    func run() async throws {
        let configuration = OSSClientConfiguration(region: region, signatureVersion: .v4)
        if let endpoint {
            guard let tokenURL, let url = URL(string: tokenURL) else {
                throw ValidationError("--token-url is required with --endpoint")
            }
            let provider = OSSRefreshingCredentialProvider { try await fetchToken(from: url) }
            try await putAndGet(endpoint: endpoint, provider: provider, configuration)
            return
        }
        // Locally: the server knows one temporary credential; the closure stands in for your token service.
        let temporary = OSSCredentials(
            accessKeyId: "STS.LocalDemoKey", accessKeySecret: "LocalDemoSecret0123456789", securityToken: "CAIS.local.demo.token")
        try await withLocalOSSServer(LocalOSSServerConfiguration(stsCredentials: [temporary], buckets: [bucket])) { server in
            print("Started a local OSS server at \(server.endpoint)")
            let provider = OSSRefreshingCredentialProvider(refreshAhead: .seconds(60)) {
                print("token service: issuing temporary credentials valid for 15 minutes")
                return OSSFederationToken(
                    accessKeyId: temporary.accessKeyId, accessKeySecret: temporary.accessKeySecret,
                    securityToken: temporary.securityToken, expiration: Date().addingTimeInterval(900))
            }
            try await putAndGet(endpoint: server.endpoint.absoluteString, provider: provider, configuration)
            print("the token service was asked \(await provider.fetchCount) time(s) for 3 requests")
        }
    }

    func putAndGet(endpoint: String, provider: OSSRefreshingCredentialProvider, _ configuration: OSSClientConfiguration)
        async throws
    {
        try await withOSSClient(endpoint: endpoint, credentialProvider: provider, configuration: configuration) { client in
            let body = Data("written with temporary credentials\n".utf8)
            let put = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: key, data: body))
            print("put oss://\(bucket)/\(key): ETag \(put.eTag ?? "-")")
            let head = try await client.headObject(OSSHeadObjectRequest(bucketName: bucket, objectKey: key))
            print("head: \(head.contentLength) bytes, CRC-64 \(head.crc64.map(String.init) ?? "-")")
            let get = try await client.getObject(OSSGetObjectRequest(bucketName: bucket, objectKey: key))
            print("get: \(String(decoding: get.content ?? Data(), as: UTF8.self))", terminator: "")
        }
    }
}

/// Fetches STS credentials from a token service that answers AssumeRole-style JSON.
func fetchToken(from url: URL) async throws -> OSSFederationToken {
    struct Answer: Decodable {
        var AccessKeyId: String
        var AccessKeySecret: String
        var SecurityToken: String
        var Expiration: String
    }
    let (data, _) = try await URLSession.shared.data(from: url)
    let answer = try JSONDecoder().decode(Answer.self, from: data)
    return OSSFederationToken(
        accessKeyId: answer.AccessKeyId, accessKeySecret: answer.AccessKeySecret, securityToken: answer.SecurityToken,
        expiration: ISO8601DateFormatter().date(from: answer.Expiration))
}
