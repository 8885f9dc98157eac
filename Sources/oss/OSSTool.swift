import ArgumentParser

import Foundation

@main
struct OSSTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oss",
        abstract: "Alibaba Cloud OSS from the command line: resumable copies, listings, presigned URLs, a local server.",
        discussion: """
            Credentials come from OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET and OSS_SESSION_TOKEN; the endpoint from
            --endpoint or OSS_ENDPOINT; the region from --region or OSS_REGION.

            \(ExitStatus.helpText)
            """,
        subcommands: [
            Demo.self, MakeBucket.self, List.self, Stat.self, Remove.self, Copy.self, Sync.self, Presign.self, Serve.self,
            TransferDaemon.self, BackgroundApp.self,
        ]
    )
}

/// Runs a command body, printing a one-line error and exiting with the documented status on failure.
func runCommand(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CleanExit {
        throw error
    } catch let error as ExitCode {
        throw error
    } catch let error as ValidationError {
        throw error
    } catch {
        let failure = CLIFailure(error)
        printError("oss: error: \(failure.message)")
        throw ExitCode(failure.status.rawValue)
    }
}
