import AliyunOSS

/// Exit codes of the `oss` tool (documented in the README and `oss --help`).
enum ExitStatus: Int32 {
    case success = 0
    /// The service answered with an error (the OSS code and request id are printed).
    case serverError = 1
    /// Bad input: missing credentials, a bad URL, a missing or unreadable file, an invalid argument.
    case clientError = 2
    /// The network failed after retries.
    case networkError = 3
    /// Data failed its integrity check (CRC64 mismatch).
    case integrityError = 4
    /// A checkpoint could not be resumed (the local file changed); run the command again to start over.
    case cannotResume = 5
    /// The transfer is in use: another process is running the same `cp` on the same checkpoint.
    case transferInUse = 6
    /// Interrupted (Ctrl-C); a `cp` keeps its checkpoint, so running it again resumes.
    case interrupted = 130
}

/// A one-line error for the terminal, with the exit status it maps to.
struct CLIFailure: Error, CustomStringConvertible {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    /// Maps any error from the SDK to a one-line message and an exit status.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self = failure
        case let server as OSSServerError:
            let code = server.code.isEmpty ? "HTTP \(server.statusCode)" : server.code
            let message = server.message.isEmpty ? "" : ": \(server.message)"
            self.init(.serverError, "\(code)\(message) (HTTP \(server.statusCode), request id \(server.requestId.isEmpty ? "-" : server.requestId))")
        case let client as OSSClientError:
            let status: ExitStatus
            switch client.code {
            case .networkError, .networkingFailWithResponseCode0: status = .networkError
            case .invalidCRC: status = .integrityError
            case .cannotResumeUpload: status = .cannotResume
            case .transferInUse: status = .transferInUse
            case .taskCancelled, .taskPaused: status = .interrupted
            default: status = .clientError
            }
            self.init(status, "\(client.code): \(client.message)")
        default:
            self.init(.clientError, "\(error)")
        }
    }

    var description: String { message }
}
