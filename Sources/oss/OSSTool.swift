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

            Exit codes: 0 success, 1 the service returned an error, 2 bad input (credentials, URL, file, argument),
            3 network failure after retries, 4 integrity check failed (CRC64), 5 a checkpoint cannot be resumed,
            6 the transfer is in use by another process (same checkpoint), 64 bad command line, 130 interrupted (a cp keeps its checkpoint: run it again to resume).
            """,
        subcommands: [
            Demo.self, MakeBucket.self, List.self, Stat.self, Remove.self, Copy.self, Presign.self, Serve.self,
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
