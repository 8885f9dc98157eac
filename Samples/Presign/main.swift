// Prints presigned GET and PUT URLs for an object, usable with curl:
//   curl -T file.txt -H 'Content-Type: application/octet-stream' '<PUT URL>'   then   curl '<GET URL>'
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... [OSS_SESSION_TOKEN=...] swift run presign \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --key hello.txt
//
// Without --endpoint it starts the embedded local OSS server and checks both URLs against it.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

@main
struct Presign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "presign", abstract: "Presign object URLs.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint (default: $OSS_ENDPOINT, else an embedded local server).") var endpointOption: String?
    /// The endpoint: --endpoint, else $OSS_ENDPOINT (as the oss CLI reads it), else the embedded local server.
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id, e.g. cn-hangzhou. Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    /// The region: --region, else $OSS_REGION (as the oss CLI reads it), else cn-hangzhou.
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name.") var bucket: String = "demo"
    @Option(help: "Object key.") var key: String = "hello.txt"
    @Option(help: "v1 or v4.") var signatureVersion: String = "v4"
    @Option(help: "Validity in seconds (V4: at most 604800).") var expires: Int = 3600

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        let configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        if let endpoint {
            try await withOSSClient(
                endpoint: endpoint, credentialProvider: OSSEnvironmentCredentialProvider(), configuration: configuration
            ) { client in
                _ = try await presign(client)
            }
            return
        }
        try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
            try await withOSSClient(
                endpoint: server.endpoint.absoluteString, credentialProvider: server.credentials.provider,
                configuration: configuration
            ) { client in
                let (put, get) = try await presign(client)
                // Use the URLs without any credentials, as a browser or curl would (the platform's transport:
                // URLSession on Apple platforms, AsyncHTTPClient on Linux).
                let transport = OSSTransportKind.automatic.makeTransport(configuration: configuration)
                let putStatus = try await transport.send(
                    OSSHTTPRequest(
                        method: "PUT", url: put, headers: ["content-type": "application/octet-stream"],
                        body: .bytes(Data("uploaded through a presigned URL\n".utf8)))
                ) { $0.status }
                let body = try await transport.send(OSSHTTPRequest(method: "GET", url: get, headers: [:])) {
                    String(decoding: try await $0.body.collect(upTo: 1 << 20), as: UTF8.self)
                }
                try await transport.shutdown()
                print("PUT -> HTTP \(putStatus); GET -> \(body)", terminator: "")
            }
        }
    }

    func presign(_ client: OSSClient) async throws -> (put: String, get: String) {
        let put = try await client.presignConstrainURL(
            bucket: bucket, key: key, method: "PUT", expiration: TimeInterval(expires),
            headers: ["Content-Type": "application/octet-stream"])
        let get = try await client.presignConstrainURL(bucket: bucket, key: key, expiration: TimeInterval(expires))
        print("PUT URL (send Content-Type: application/octet-stream):\n\(put)\nGET URL:\n\(get)")
        return (put, get)
    }
}
