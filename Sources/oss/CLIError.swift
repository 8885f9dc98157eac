import AliyunOSS

import Foundation

/// Exit codes of the `oss` tool (documented in the README and `oss --help`).
enum ExitStatus: Int32 {
    case success = 0
    /// The service answered with an error (the OSS code and request id are printed), or an object named does not
    /// exist (`rm` looks each one up, since OSS answers the delete of a missing key as any other).
    case serverError = 1
    /// Bad input: missing credentials, a bad URL, a missing or unreadable file, an invalid argument (a directory
    /// given to `cp` without `-r`, a folder given to `rm` without `-r`).
    case clientError = 2
    /// The network failed after retries.
    case networkError = 3
    /// Data failed its integrity check (CRC64 mismatch).
    case integrityError = 4
    /// A transfer cannot continue from its checkpoint (the local file or the object changed); run the command
    /// again to start over.
    case cannotResume = 5
    /// The transfer is in use: another process is running the same `cp` on the same checkpoint.
    case transferInUse = 6
    /// A directory transfer (`cp -r`, `sync`) ended with files that failed or were refused (each one printed);
    /// running it again retries the failed ones.
    case incomplete = 7
    /// A delete of more than one object (`rm -r`, `rm --all-versions`, `sync --delete`, `rb`) or an abort of more
    /// than one upload (`rm -m`) was not confirmed: the answer was not yes, or there was no terminal to ask and no
    /// `--force`. Nothing was deleted.
    case notConfirmed = 8
    /// Interrupted (Ctrl-C); a `cp` keeps its checkpoint, so running it again resumes (the line that reports the
    /// pause names what was kept and the command).
    case interrupted = 130

    /// The one table from an SDK client error code to an exit status (the `oss --help` text documents it).
    /// A code not listed (a future one) maps to ``clientError``.
    static let clientErrorTable: [OSSClientErrorCode: ExitStatus] = [
        .networkError: .networkError,
        .networkingFailWithResponseCode0: .networkError,
        .invalidCRC: .integrityError,
        .cannotResumeUpload: .cannotResume,
        .cannotResumeDownload: .cannotResume,
        .objectChanged: .cannotResume,
        .fileChanged: .cannotResume,
        .batchSourceNeeded: .cannotResume,
        .transferInUse: .transferInUse,
        .taskCancelled: .interrupted,
        .taskPaused: .interrupted,
        .signFailed: .clientError,
        .fileCantWrite: .clientError,
        .noSpaceLeft: .clientError,
        .connectionNotTrusted: .clientError,
        .fileCantRead: .clientError,
        .invalidArgument: .clientError,
        .nilUploadid: .clientError,
        .clientShutDown: .clientError,
        .encryptedObject: .clientError,
        .exceptionCaught: .clientError,
        .notKnown: .clientError,
        .batchStopped: .clientError,
    ]

    /// The exit statuses as `oss --help` documents them.
    static let helpText = """
        Exit codes: 0 success, 1 the service returned an error (a batch that meets a missing bucket, denied access or \
        bad credentials stops at once with it) or an object named does not exist (rm checks), 2 bad input \
        (credentials, endpoint, URL, file, argument: a folder given to rm without -r), 3 network \
        failure after retries (running it again can help), 4 integrity check failed (CRC64), 5 a transfer cannot \
        continue from its checkpoint (the local file or the object changed: running it again starts over), 6 the \
        transfer is in use by another process (same checkpoint), 7 a directory copy or sync ended with files that \
        failed or were refused (each listed; running it again retries the failed ones; skipped symbolic links are \
        warnings, not failures), 8 a delete of more than one object (or an abort of more than one upload) was not \
        confirmed (nothing deleted), 64 bad command line, 130 interrupted (a cp or sync keeps its checkpoint: running \
        it again resumes, as the line that reports the pause says), 141 the reader \
        of standard output went away (killed by SIGPIPE, as any Unix filter).
        """

    /// The exit status for an SDK client error code, from ``clientErrorTable``.
    init(clientErrorCode code: OSSClientErrorCode) {
        self = Self.clientErrorTable[code] ?? .clientError
    }
}

/// A one-line error for the terminal, with the exit status it maps to.
struct CLIFailure: Error, CustomStringConvertible {
    var status: ExitStatus
    var message: String
    /// Whether the line is an error (`oss: error: ...`); a report that is not one, such as a paused transfer, is
    /// printed as `oss: ...` and still ends the command with ``status``.
    var isError = true

    init(_ status: ExitStatus, _ message: String, isError: Bool = true) {
        self.status = status
        self.message = message
        self.isError = isError
    }

    /// Maps any error from the SDK to a one-line message and an exit status.
    init(_ error: any Error) {
        switch error {
        case let failure as CLIFailure:
            self = failure
        case let server as OSSServerError:
            let code = server.code.isEmpty ? "HTTP \(server.statusCode)" : server.code
            var message = server.message.isEmpty ? "" : ": \(server.message)"
            // A versioned key hidden by a delete marker (404), or a version id naming a marker (405): say so, as
            // the server does in `x-oss-delete-marker`.
            if server.headers["x-oss-delete-marker"] == "true" {
                let marker = server.headers["x-oss-version-id"].map { " \($0)" } ?? ""
                message += server.statusCode == 405
                    ? " (that version is the delete marker\(marker), which has no content)"
                    : " (the key's latest version is the delete marker\(marker); oss ls --all-versions lists the versions)"
            }
            self.init(.serverError, "\(code)\(message) (HTTP \(server.statusCode), request id \(server.requestId.isEmpty ? "-" : server.requestId))")
        case let client as OSSClientError where client.code == .encryptedObject:
            // The SDK's message names its API; here what to type.
            let object = client.message.split(separator: " ").first.map(String.init) ?? "the object"
            self.init(
                ExitStatus(clientErrorCode: client.code),
                "\(client.code): \(object) is encrypted on the client side; nothing was written. Download it to a file "
                    + "with --encryption-key PEM (the RSA private key it was encrypted for): oss cp --encryption-key "
                    + "key.pem \(object) FILE")
        case let client as OSSClientError:
            var message = "\(client.code): \(client.message)"
            // An errno the message does not explain yet gets its reason text.
            if let code = client.posixErrorCode, !message.contains(String(cString: strerror(code))) {
                message += " (\(describeErrno(code)))"
            }
            // A batch that met a missing bucket, denied access or bad credentials: the service's error (exit 1).
            let endsBatch = client.code == .batchStopped && (client.underlying as? OSSBatchFailure)?.endsBatch == true
            self.init(endsBatch ? .serverError : ExitStatus(clientErrorCode: client.code), message)
        default:
            self.init(.clientError, "\(error)")
        }
    }

    var description: String { message }
}
