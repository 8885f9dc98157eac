import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the tool writes where: data (listings, `stat`, presigned URLs, an object sent to `-`, `--json`, and one
/// line per object a command changed or would change) on standard output; progress, summaries, warnings, questions
/// and errors on standard error. Both are written with `write(2)`, never through `FileHandle.write`, which traps on
/// a closed pipe.
enum StandardStreams {
    /// Writes all of `bytes` to standard output. A reader that went away (`oss ls -r oss://b | head -1`) ends the
    /// process as it ends any Unix filter: quietly, by SIGPIPE (a shell reports status 141, and prints nothing).
    /// Any other failure (a full disk) is reported and ends the process with status 2.
    static func writeOutput(_ bytes: Data) {
        guard let failure = writeAll(bytes, to: STDOUT_FILENO) else { return }
        if failure == EPIPE { readerWentAway() }
        writeError(Data("oss: error: cannot write standard output: \(describeErrno(failure))\n".utf8))
        exit(ExitStatus.clientError.rawValue)
    }

    /// Writes all of `bytes` to standard error; a closed standard error loses the message, nothing more.
    static func writeError(_ bytes: Data) {
        _ = writeAll(bytes, to: STDERR_FILENO)
    }

    /// Ends the process by SIGPIPE, as the default disposition would have (some libraries the tool links ignore
    /// SIGPIPE, so the write saw EPIPE instead).
    static func readerWentAway() -> Never {
        signal(SIGPIPE, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        raise(SIGPIPE)
        _exit(128 + SIGPIPE)
    }

    /// `write(2)` until all of `bytes` is written; the errno of a failure, nil on success.
    static func writeAll(_ bytes: Data, to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { raw -> Int32? in
            guard let base = raw.baseAddress else { return nil }
            var written = 0
            while written < raw.count {
                let n = write(descriptor, base + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += n
            }
            return nil
        }
    }
}

/// `errno 28 (No space left on device)`: the number and the reason text.
func describeErrno(_ code: Int32) -> String {
    "errno \(code) (\(String(cString: strerror(code))))"
}
