import ArgumentParser
import OSSLocalServer

import Foundation

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the local OSS-compatible server in the foreground (Ctrl-C stops it).",
        discussion: "Credentials: $OSS_ACCESS_KEY_ID / $OSS_ACCESS_KEY_SECRET, or the development pair \(LocalOSSServerConfiguration.defaultAccessKeyId) / \(LocalOSSServerConfiguration.defaultAccessKeySecret).")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks a free port).") var port = 0
    @Option(name: .customLong("data-dir"), help: "Data directory (default: a temporary directory deleted on exit).")
    var dataDir: String?
    @Option(name: .customLong("bucket"), help: "Bucket to create at start-up (repeatable).") var buckets: [String] = []
    @Option(name: .customLong("fault"), help: "Fault rule, e.g. UploadPart:nth=3:status=503 (repeatable).")
    var faults: [String] = []
    @Flag(help: "Enable the admin endpoints /-/faults and /-/stats.") var admin = false

    func run() async throws {
        try await runCommand {
            let environment = ProcessInfo.processInfo.environment
            var rules: [LocalOSSFaultRule] = []
            for text in faults {
                do { rules.append(try LocalOSSFaultRule(parsing: text)) } catch {
                    throw CLIFailure(.clientError, "bad --fault \(text): \(error)")
                }
            }
            let configuration = LocalOSSServerConfiguration(
                host: host, port: port, dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
                accessKeyId: environment["OSS_ACCESS_KEY_ID"] ?? LocalOSSServerConfiguration.defaultAccessKeyId,
                accessKeySecret: environment["OSS_ACCESS_KEY_SECRET"] ?? LocalOSSServerConfiguration.defaultAccessKeySecret,
                buckets: buckets, faults: rules, adminEnabled: admin)
            let watcher = SignalWatcher()
            let server = try await LocalOSSServer.start(configuration)
            FileHandle.standardOutput.write(Data("listening on \(server.endpoint.absoluteString)\n".utf8))
            _ = await watcher.next()
            try await server.shutdown()
        }
    }
}
