// The app's signing endpoint for devices that hold no OSS secret (routes: RemoteSigner.swift).
//
//   swift run --package-path Samples remote-signer --region cn-hangzhou --bucket my-app --session alice=TOKEN
//   (on the device) OSSRemoteSignerCredentialProvider(url: "https://app.example.com/oss-sign",
//                                                      headers: ["Authorization": "Bearer TOKEN"])
//
// The server's credentials come from the default chain (an ECS RAM role, RRSA on ACK, a profile on a laptop). With
// --local it starts the embedded local OSS server instead, signs with its credentials and prints its endpoint, so a
// device build can try the whole flow on one machine. --session stands in for the app's own session store.
import AliyunOSS
import ArgumentParser
import Foundation
import Hummingbird
import OSSLocalServer
import RemoteSigner

@main
struct RemoteSignerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote-signer", abstract: "Sign OSS requests for devices, each user within users/<user>/.")

    @Option(help: "Region id of V4 signing (default: $OSS_REGION, else cn-hangzhou).") var region: String?
    @Option(help: "Bucket name.") var bucket: String = "app"
    @Option(help: "Port to listen on (127.0.0.1).") var port: Int = 8080
    @Option(help: "A user and the bearer token of their session, as user=token (repeatable).") var session: [String] = []
    @Flag(help: "Sign for an embedded local OSS server instead of OSS.") var local = false

    func run() async throws {
        var sessions: [String: String] = [:]
        for pair in session {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, RemoteSigner.userPrefix(parts[0]) != nil, !parts[1].isEmpty else {
                throw ValidationError("--session needs user=token, the user of letters, digits, - and _: \(pair)")
            }
            sessions[parts[1]] = parts[0]
        }
        let region = region ?? ProcessInfo.processInfo.environment["OSS_REGION"] ?? "cn-hangzhou"
        let users = sessions
        func serve(_ credentials: any OSSCredentialProvider) async throws {
            let signer = RemoteSigner(credentials: credentials, region: region, bucket: bucket) { users[$0] }
            let app = Application(router: signer.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)))
            try await app.runService()
        }
        if local {
            try await withLocalOSSServer(LocalOSSServerConfiguration(region: region, buckets: [bucket])) { server in
                print("Signing for the local OSS server at \(server.endpoint)")
                try await serve(server.credentials.provider)
            }
        } else {
            try await serve(OSSDefaultCredentialProvider())
        }
    }
}
