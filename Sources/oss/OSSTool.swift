import ArgumentParser

import Foundation

@main
struct OSSTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oss",
        abstract: "Alibaba Cloud OSS from the command line: resumable copies, listings, presigned URLs, a local server.",
        discussion: helpProse("""
            Credentials come from --profile NAME (a profile of the aliyun CLI's configuration, as oss config writes \
            it), else OSS_ACCESS_KEY_ID, OSS_ACCESS_KEY_SECRET and OSS_SESSION_TOKEN, else the default credentials \
            chain (ALIBABA_CLOUD_* variables, OIDC, the aliyun CLI's current profile, the credentials file, the ECS \
            RAM role, a credentials URI); oss whoami shows which answered. The endpoint from
            --endpoint or OSS_ENDPOINT (with its scheme: http://127.0.0.1:9000, \
            https://oss-cn-hangzhou.aliyuncs.com); the region from --region or OSS_REGION.

            \(PathRule.helpText)

            \(DeleteConfirmation.helpText)

            Output: data (listings, stat, presigned URLs, an object copied to -, --json, and one line per object a \
            command changed or would change) goes to standard output; progress, summaries, warnings, questions and \
            errors to standard error. A closed pipe (oss ls -r oss://b | head -1) ends any command quietly.

            \(ExitStatus.helpText)
            """),
        subcommands: [
            Demo.self, MakeBucket.self, RemoveBucket.self, BucketVersioning.self, List.self, Stat.self, Remove.self, Copy.self, Sync.self, Presign.self, Serve.self,
            BucketConfig.self,
            TransferDaemon.self, BackgroundApp.self,
            Config.self, Whoami.self,
        ]
    )
}

/// Runs a command body, printing a one-line error and exiting with the documented status on failure.
func runCommand(_ body: () async throws -> Void) async throws {
    // A write to a closed socket or pipe returns EPIPE instead of killing the process; standard output's
    // EPIPE then ends the command quietly (StandardStreams).
    signal(SIGPIPE, SIG_IGN)
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
        printError(failure.isError ? "oss: error: \(failure.message)" : "oss: \(failure.message)")
        throw ExitCode(failure.status.rawValue)
    }
}

/// Help prose as ArgumentParser should wrap it: the lines of each paragraph (paragraphs are separated by a blank line)
/// joined with spaces, so that the source's line breaks do not break sentences in the middle of a terminal line.
func helpProse(_ text: String) -> String {
    text.components(separatedBy: "\n\n").map { paragraph in
        paragraph.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: " ")
    }.joined(separator: "\n\n")
}
