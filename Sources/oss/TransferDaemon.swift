import AliyunOSS
import ArgumentParser

import Foundation

/// `oss _transfer-daemon` (hidden): the simulated system transfer daemon of background transfers. Performs the
/// tasks app processes submit to a session's spool and keeps their outcomes for the next app process.
struct TransferDaemon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_transfer-daemon", abstract: "Simulated background transfer daemon (for tests and the demo).",
        shouldDisplay: false)

    @Option(help: "The spool directory shared with the app processes.") var spool: String
    @Option(help: "The background session identifier.") var session: String
    @Option(help: "Tasks performed at once.") var concurrency = 2
    @Option(help: "HTTP stack: urlsession or asynchttpclient.") var transport: String?
    @Flag(help: "Exit once no task is submitted or running.") var exitWhenIdle = false

    func run() async throws {
        try await runCommand {
            let daemon = OSSSimulatedTransferDaemon(
                spoolDirectory: spool, sessionIdentifier: session, concurrency: concurrency,
                transport: try transportKind(transport))
            let performed = try await daemon.run(exitWhenIdle: exitWhenIdle)
            say("daemon: performed \(performed) task(s)")
        }
    }
}
