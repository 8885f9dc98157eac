import ArgumentParser
import LocalServerCommand

/// `oss serve`: the local server in the foreground, with the flags of `oss-local-server` (one ``LocalServerOptions``).
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the local OSS-compatible server in the foreground (Ctrl-C stops it); the same flags as oss-local-server.",
        discussion: LocalServerOptions.discussion)

    @OptionGroup var options: LocalServerOptions

    func run() async throws {
        try await runCommand { try await options.run() }
    }
}
