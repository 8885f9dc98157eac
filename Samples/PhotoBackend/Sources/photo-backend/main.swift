// A Hummingbird backend in front of a bucket (routes: PhotoBackend.swift), with OSS metrics and tracing installed.
//
//   OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... swift run --package-path Samples photo-backend \
//       --endpoint https://oss-cn-hangzhou.aliyuncs.com --region cn-hangzhou --bucket my-bucket
//   curl -T me.jpg http://127.0.0.1:8080/photos/me.jpg
//   curl -L http://127.0.0.1:8080/photos/me.jpg -o copy.jpg
//
// Without --endpoint it starts the embedded local OSS server and serves from there. Metrics and spans go to the
// process-wide MetricsSystem and InstrumentationSystem: bootstrap your backends (Prometheus, OpenTelemetry) before
// `run`, and the OSS client's figures appear beside Hummingbird's; bootstrapped with neither, they cost nothing.
import AliyunOSS
import AliyunOSSObservability
import ArgumentParser
import Foundation
import Hummingbird
import OSSLocalServer
import PhotoBackend

@main
struct PhotoBackendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photo-backend", abstract: "Serve photos from a bucket over HTTP (Hummingbird).")

    @Option(name: .customLong("endpoint"), help: "OSS endpoint (default: $OSS_ENDPOINT, else an embedded local server).")
    var endpointOption: String?
    var endpoint: String? { endpointOption ?? ProcessInfo.processInfo.environment["OSS_ENDPOINT"] }
    @Option(help: "Region id (default: $OSS_REGION, else cn-hangzhou).") var region: String?
    @Option(help: "Bucket name.") var bucket: String = "photos"
    @Option(help: "Port to listen on (127.0.0.1).") var port: Int = 8080

    func run() async throws {
        var configuration = OSSClientConfiguration(
            region: region ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou")
        configuration.observe(OSSObservability())
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
            let backend = PhotoBackend(client: client, bucket: bucket)
            let app = Application(
                router: backend.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)))
            try await app.runService()
        }
    }
}
