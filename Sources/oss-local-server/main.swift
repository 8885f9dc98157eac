import ArgumentParser
import LocalServerCommand

/// `oss-local-server`: runs the local OSS-compatible server until SIGINT or SIGTERM (`oss serve` is the same
/// command inside the `oss` tool: both take ``LocalServerOptions``).
@main
struct OSSLocalServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oss-local-server",
        abstract: "A local, disk-backed, OSS-compatible server for development and tests.",
        discussion: LocalServerOptions.discussion)

    @OptionGroup var options: LocalServerOptions

    func run() async throws {
        try await options.run()
    }
}
