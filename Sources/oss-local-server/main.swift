import ArgumentParser
import Dispatch
import Foundation
import Logging
import OSSLocalServer
import OSSSigning

/// `oss-local-server`: runs the local OSS-compatible server until SIGINT or SIGTERM.
@main
struct OSSLocalServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oss-local-server",
        abstract: "A local, disk-backed, OSS-compatible server for development and tests.")

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on (0 picks a free port).")
    var port = 0

    @Option(name: .customLong("data-dir"), help: "Data directory (default: a temporary directory deleted on exit).")
    var dataDir: String?

    @Option(name: .customLong("access-key-id"), help: "Access key id (default: $OSS_ACCESS_KEY_ID or the development pair).")
    var accessKeyId: String?

    @Option(name: .customLong("access-key-secret"), help: "Access key secret (default: $OSS_ACCESS_KEY_SECRET or the development pair).")
    var accessKeySecret: String?

    @Option(name: .customLong("sts-credential"), help: "Temporary credential AK:SK:TOKEN (repeatable).")
    var stsCredentials: [String] = []

    @Option(help: "Region checked in V4 scopes.")
    var region = "cn-hangzhou"

    @Option(name: .customLong("bucket"), help: "Bucket to create at start-up (repeatable).")
    var buckets: [String] = []

    @Option(name: .customLong("fault"), help: "Fault rule, e.g. UploadPart:nth=3:status=503 (repeatable).")
    var faults: [String] = []

    @Flag(help: "Enable the admin endpoints /-/faults, /-/stats and /-/sts (issues temporary credentials).")
    var admin = false

    @Option(name: .customLong("max-clock-skew"), help: "Largest accepted request-time skew in seconds.")
    var maxClockSkew: Double = 900

    @Option(
        name: .customLong("virtual-host-domain"),
        help: "Host-name suffix meaning <bucket>.<suffix> addressing, e.g. oss-cn-hangzhou.aliyuncs.com (repeatable; localhost and IPv4 addresses always are).")
    var virtualHostDomains: [String] = []

    @Option(
        name: .customLong("kms-key-id"),
        help: "The KMS key id reported for objects written with x-oss-server-side-encryption: KMS that name none.")
    var kmsKeyId: String?

    @Option(
        name: .customLong("log-level"),
        help: "Logging threshold on standard error: trace, debug, info (one line per request), notice, warning, error, critical.")
    var logLevel = "warning"

    func run() async throws {
        guard let level = Logger.Level(rawValue: logLevel.lowercased()) else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "oss-local-server")
        logger.logLevel = level
        let environment = ProcessInfo.processInfo.environment
        var sts: [OSSCredentials] = []
        for item in stsCredentials {
            let parts = item.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
                throw ValidationError("--sts-credential must be AK:SK:TOKEN")
            }
            sts.append(OSSCredentials(accessKeyId: parts[0], accessKeySecret: parts[1], securityToken: parts[2]))
        }
        var rules: [LocalOSSFaultRule] = []
        for text in faults {
            do { rules.append(try LocalOSSFaultRule(parsing: text)) } catch { throw ValidationError("\(error)") }
        }
        var configuration = LocalOSSServerConfiguration(
            host: host, port: port, dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            accessKeyId: accessKeyId ?? environment["OSS_ACCESS_KEY_ID"] ?? LocalOSSServerConfiguration.defaultAccessKeyId,
            accessKeySecret: accessKeySecret ?? environment["OSS_ACCESS_KEY_SECRET"]
                ?? LocalOSSServerConfiguration.defaultAccessKeySecret,
            stsCredentials: sts, region: region, buckets: buckets, faults: rules, adminEnabled: admin,
            maxClockSkew: maxClockSkew, virtualHostDomains: virtualHostDomains, logger: logger)
        if let kmsKeyId { configuration.kmsKeyId = kmsKeyId }

        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let signalQueue = DispatchQueue(label: "oss-local-server.signals")
        let sources = [SIGINT, SIGTERM].map { number in
            let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        let server = try await LocalOSSServer.start(configuration)
        // FileHandle writes are unbuffered: the line is visible to a reading parent at once.
        FileHandle.standardOutput.write(Data("listening on \(server.endpoint.absoluteString)\n".utf8))
        for await _ in signals { break }
        sources.forEach { $0.cancel() }
        try await server.shutdown()
    }
}
