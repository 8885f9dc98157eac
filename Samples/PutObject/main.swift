// Uploads a file (or a short text) with PutObject.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... swift run put-object \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --key hello.txt --file ./hello.txt
//
// Without --endpoint it starts the embedded local OSS server and uploads there.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

@main
struct PutObject: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "put-object", abstract: "Upload an object.")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint, e.g. https://oss-cn-hangzhou.aliyuncs.com (default: $OSS_ENDPOINT, else an embedded local server).")
    var endpointOption: String?
    /// The endpoint: --endpoint, else $OSS_ENDPOINT (as the oss CLI reads it), else the embedded local server.
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(name: .customLong("region"), help: "Region id, e.g. cn-hangzhou (needed for V4). Default: $OSS_REGION, else cn-hangzhou.")
    var regionOption: String?
    /// The region: --region, else $OSS_REGION (as the oss CLI reads it), else cn-hangzhou.
    var region: String { regionOption ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou" }
    @Option(help: "Bucket name.") var bucket: String = "demo"
    @Option(help: "Object key.") var key: String = "hello.txt"
    @Option(help: "v1 or v4.") var signatureVersion: String = "v4"
    @Option(help: "File to upload; a short text is uploaded when omitted.") var file: String?

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        let configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        if let endpoint {
            try await upload(endpoint: endpoint, credentials: OSSEnvironmentCredentialProvider(), configuration)
        } else {
            try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                print("Started a local OSS server at \(server.endpoint)")
                try await upload(
                    endpoint: server.endpoint.absoluteString, credentials: server.credentials.provider, configuration)
            }
        }
    }

    func upload(
        endpoint: String, credentials: any OSSCredentialProvider, _ configuration: OSSClientConfiguration
    ) async throws {
        try await withOSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration) {
            client in
            var request: OSSPutObjectRequest
            if let file {
                request = OSSPutObjectRequest(bucketName: bucket, objectKey: key, fileURL: URL(fileURLWithPath: file))
            } else {
                request = OSSPutObjectRequest(bucketName: bucket, objectKey: key, data: Data("Hello, OSS!\n".utf8))
            }
            request.uploadProgress = { _, sent, total in print("\rsent \(sent)/\(total) bytes", terminator: "") }
            let result = try await client.putObject(request)
            print("\nETag \(result.eTag ?? "-"), CRC-64 \(result.crc64.map(String.init) ?? "-"), request \(result.requestId)")
        }
    }
}
