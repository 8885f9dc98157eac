// A backend that lets a browser upload straight to a bucket (routes and limits: BrowserUpload.swift; the page:
// Page/index.html and Page/upload.js).
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... swift run --package-path Samples browser-upload \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket
//   open http://127.0.0.1:8080/
//
// Without --endpoint it starts the embedded local OSS server (on a port of its own, so the page really is on
// another origin than the bucket). At start it puts a CORS rule on the bucket for the page's origin: this REPLACES
// the bucket's CORS rules (pass --no-cors to leave them alone).
import AliyunOSS
import ArgumentParser
import BrowserUpload
import Foundation
import Hummingbird
import OSSLocalServer

@main
struct BrowserUploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browser-upload",
        abstract: "Serve a page that uploads straight to a bucket with POST policies and presigned multipart (Hummingbird).")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint (default: $OSS_ENDPOINT, else an embedded local server).")
    var endpointOption: String?
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(help: "Region id (default: $OSS_REGION, else cn-hangzhou).") var region: String?
    @Option(help: "Bucket name.") var bucket: String = "uploads"
    @Option(help: "Port to listen on (127.0.0.1).") var port: Int = 8080
    @Option(help: "Largest file sent as one POST form, in bytes.") var formLimit: Int64 = 5 << 20
    @Option(help: "Largest file sent in parts, in bytes.") var multipartLimit: Int64 = 1 << 30
    @Option(help: "Part size in bytes (at least 102400).") var partSize: Int64 = 5 << 20
    @Option(help: "Parts the page sends at once.") var parallelParts: Int = 3
    @Option(help: "Lifetime of a signed form or presigned URL, in seconds.") var linkLifetime: Int = 600
    @Flag(help: "Leave the bucket's CORS rules alone (they must then allow this page's origin).") var noCors = false

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be 1 to 65535") }
        guard partSize >= 100 << 10, partSize <= 5 << 30 else { throw ValidationError("--part-size must be 100 KiB to 5 GiB") }
        guard formLimit >= 0, multipartLimit > 0 else { throw ValidationError("the limits cannot be negative") }
        guard (1...16).contains(parallelParts) else { throw ValidationError("--parallel-parts must be 1 to 16") }
        guard (1...604_800).contains(linkLifetime) else { throw ValidationError("--link-lifetime must be 1 to 604800") }
    }

    func run() async throws {
        let configuration = OSSClientConfiguration(
            region: region ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou", signatureVersion: .v4)
        if let endpoint {
            try await serve(endpoint: endpoint, credentials: OSSEnvironmentCredentialProvider(), configuration)
        } else {
            try await withLocalOSSServer(LocalOSSServerConfiguration(buckets: [bucket])) { server in
                print("Started a local OSS server at \(server.endpoint)")
                try await serve(endpoint: server.endpoint.absoluteString, credentials: server.credentials.provider, configuration)
            }
        }
    }

    func serve(endpoint: String, credentials: any OSSCredentialProvider, _ configuration: OSSClientConfiguration) async throws {
        try await withOSSClient(endpoint: endpoint, credentialProvider: credentials, configuration: configuration) { client in
            let backend = BrowserUpload(
                client: client, bucket: bucket, formLimit: formLimit, multipartLimit: multipartLimit, partSize: partSize,
                parallelParts: parallelParts, linkLifetime: TimeInterval(linkLifetime))
            if !noCors {
                try await backend.allowBrowsers(from: ["http://127.0.0.1:\(port)", "http://localhost:\(port)"])
            }
            let app = Application(
                router: backend.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)),
                onServerRunning: { _ in
                    FileHandle.standardOutput.write(Data("Serving the upload page at http://127.0.0.1:\(port)/\n".utf8))
                })
            try await app.runService()
        }
    }
}
