// Downloads an object, or a byte range of it, into a file.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... swift run get-object \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket --key hello.txt \
//       --range 0-99 --output ./part.bin
//
// Without --endpoint it starts the embedded local OSS server, uploads a sample object and reads it back.
import AliyunOSS
import ArgumentParser
import Foundation
import OSSLocalServer

@main
struct GetObject: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get-object", abstract: "Download an object.")

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
    @Option(help: "Byte range: a-b, a- or -n (inclusive offsets).") var range: String?
    @Option(help: "Output file (default: print the bytes).") var output: String?

    func run() async throws {
        guard let version = OSSSignatureVersion(rawValue: signatureVersion) else {
            throw ValidationError("--signature-version must be v1 or v4")
        }
        let configuration = OSSClientConfiguration(region: region, signatureVersion: version)
        if let endpoint {
            try await download(endpoint: endpoint, credentials: OSSEnvironmentCredentialProvider(), configuration)
        } else {
            try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                let credentials = server.credentials.provider
                try await withOSSClient(
                    endpoint: server.endpoint.absoluteString, credentialProvider: credentials, configuration: configuration
                ) { client in
                    let text = Data("0123456789abcdefghijklmnopqrstuvwxyz\n".utf8)
                    _ = try await client.putObject(OSSPutObjectRequest(bucketName: bucket, objectKey: key, data: text))
                }
                try await download(endpoint: server.endpoint.absoluteString, credentials: credentials, configuration)
            }
        }
    }

    /// Parses `a-b`, `a-` or `-n`.
    func parseRange(_ text: String) throws -> OSSObjectRange {
        let pieces = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard pieces.count == 2 else { throw ValidationError("--range must look like a-b, a- or -n") }
        switch (Int64(pieces[0]), Int64(pieces[1])) {
        case (let a?, let b?): return .closed(a, b)
        case (let a?, nil) where pieces[1].isEmpty: return .from(a)
        case (nil, let n?) where pieces[0].isEmpty: return .suffix(n)
        default: throw ValidationError("--range must look like a-b, a- or -n")
        }
    }

    func download(
        endpoint: String, credentials: any OSSCredentialProvider, _ configuration: OSSClientConfiguration
    ) async throws {
        let request = OSSGetObjectRequest(bucketName: bucket, objectKey: key, range: try range.map(parseRange))
        try await withOSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration) {
            client in
            if let output {
                let result = try await client.getObject(request, toFile: URL(fileURLWithPath: output))
                print("wrote \(result.contentLength ?? 0) bytes to \(output) (HTTP \(result.statusCode))")
            } else {
                let result = try await client.getObject(request, maxBytes: 1 << 20)
                print("HTTP \(result.statusCode) \(result.contentRange.map { "bytes \($0.start)-\($0.end)" } ?? "")")
                print(String(decoding: result.content ?? Data(), as: UTF8.self))
            }
        }
    }
}
