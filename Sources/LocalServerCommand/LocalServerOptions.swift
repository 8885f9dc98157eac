import ArgumentParser
import Dispatch
import Foundation
import Logging
import OSSLocalServer
import OSSSigning

/// The command line of the local server, one type for its two front ends: the `oss-local-server` executable and
/// `oss serve`, so that both take the same flags and behave the same.
///
/// Output: standard output gets one line, `listening on <url>`, the line scripts and tests wait for and parse;
/// the `export` lines to paste into a shell go to standard error with the logs, as text meant for a person.
public struct LocalServerOptions: ParsableArguments {
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

    public init() {}

    /// The help text's discussion, for both commands.
    public static let discussion = """
        Credentials: --access-key-id/--access-key-secret, else $OSS_ACCESS_KEY_ID/$OSS_ACCESS_KEY_SECRET, else the \
        development pair \(LocalOSSServerConfiguration.defaultAccessKeyId) / \(LocalOSSServerConfiguration.defaultAccessKeySecret).
        Standard output gets one line, `listening on URL`; standard error gets the `export OSS_ENDPOINT=... \
        OSS_ACCESS_KEY_ID=... OSS_ACCESS_KEY_SECRET=... OSS_REGION=...` line to paste into a shell (a secret of your \
        own is not printed), then the logs.
        """

    public func validate() throws {
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        _ = try temporaryCredentials()
        _ = try faultRules()
    }

    /// The server's configuration from the flags and the environment, logging through `logger`.
    public func configuration(
        environment: [String: String] = ProcessInfo.processInfo.environment, logger: Logger
    ) throws -> LocalOSSServerConfiguration {
        var configuration = LocalOSSServerConfiguration(
            host: host, port: port, dataDirectory: dataDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
            accessKeyId: accessKeyId ?? environment["OSS_ACCESS_KEY_ID"] ?? LocalOSSServerConfiguration.defaultAccessKeyId,
            accessKeySecret: accessKeySecret ?? environment["OSS_ACCESS_KEY_SECRET"]
                ?? LocalOSSServerConfiguration.defaultAccessKeySecret,
            stsCredentials: try temporaryCredentials(), region: region, buckets: buckets, faults: try faultRules(),
            adminEnabled: admin, maxClockSkew: maxClockSkew, virtualHostDomains: virtualHostDomains, logger: logger)
        if let kmsKeyId { configuration.kmsKeyId = kmsKeyId }
        return configuration
    }

    /// Starts the server, prints `listening on <url>` (standard output) and the `export` lines (standard error),
    /// and serves until SIGINT or SIGTERM.
    public func run() async throws {
        let level = Logger.Level(rawValue: logLevel.lowercased()) ?? .warning
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "oss-local-server")
        logger.logLevel = level
        let configuration = try configuration(logger: logger)

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
        FileHandle.standardError.write(Data(Self.exportLines(endpoint: server.endpoint, configuration: configuration).utf8))
        for await _ in signals { break }
        sources.forEach { $0.cancel() }
        try await server.shutdown()
    }

    /// The lines to paste into a shell so that `oss`, the samples and the SDK's environment provider use this
    /// server. The secret is printed only when it is the published development pair's; a secret of the user's
    /// own (from the environment or --access-key-secret) is never written out.
    public static func exportLines(endpoint: URL, configuration: LocalOSSServerConfiguration) -> String {
        let endpointText = endpoint.absoluteString.hasSuffix("/")
            ? String(endpoint.absoluteString.dropLast()) : endpoint.absoluteString
        var text = "# to use this server from a shell, paste:\n"
        text += "export OSS_ENDPOINT=\(shellQuoted(endpointText)) OSS_ACCESS_KEY_ID=\(shellQuoted(configuration.accessKeyId))"
        if configuration.accessKeySecret == LocalOSSServerConfiguration.defaultAccessKeySecret {
            text += " OSS_ACCESS_KEY_SECRET=\(shellQuoted(configuration.accessKeySecret))"
        }
        text += " OSS_REGION=\(shellQuoted(configuration.region))\n"
        if configuration.accessKeySecret != LocalOSSServerConfiguration.defaultAccessKeySecret {
            text += "# and OSS_ACCESS_KEY_SECRET: the secret the server was started with (not printed)\n"
        }
        return text
    }

    /// `text` as one word of a POSIX shell: bare when it is made of safe characters, else in single quotes.
    static func shellQuoted(_ text: String) -> String {
        let safe = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:/@%+=,")
        if !text.isEmpty, text.allSatisfy(safe.contains) { return text }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    private func temporaryCredentials() throws -> [OSSCredentials] {
        try stsCredentials.map { item in
            let parts = item.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
                throw ValidationError("--sts-credential must be AK:SK:TOKEN")
            }
            return OSSCredentials(accessKeyId: parts[0], accessKeySecret: parts[1], securityToken: parts[2])
        }
    }

    private func faultRules() throws -> [LocalOSSFaultRule] {
        try faults.map { text in
            do { return try LocalOSSFaultRule(parsing: text) } catch { throw ValidationError("bad --fault \(text): \(error)") }
        }
    }
}
