import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Credentials printed by a program of your own, as the Credentials libraries' `external` provider (and the `aliyun`
/// CLI's `External` profiles) run it: the command is split as a POSIX shell splits words (quotes and backslashes;
/// no variables, globs or pipes), the program found on `PATH` unless the first word has a `/`, run with the
/// process's environment, and it must exit 0 within the timeout (60 s by default) having printed one JSON object:
///
/// ```json
/// {"mode": "StsToken", "access_key_id": "STS.…", "access_key_secret": "…", "sts_token": "…",
///  "expiration": "2026-11-27T10:00:00Z"}
/// ```
///
/// (`mode` `AK` with no token, or `StsToken` with one; `expiration` optional). Credentials with an expiration are
/// cached until ``refreshAhead`` before it (3 minutes by default, as the libraries); without one the program runs
/// again for every request, as in the libraries. Concurrent requests share one run.
///
/// The program's output is never logged or kept in an error: its standard error is discarded, its standard output
/// read only for the credentials. A program that cannot start, exits non-zero, is killed by a signal, prints
/// something else, or outlives the timeout (then it is killed, its process group too when it leads one) is an
/// ``OSSClientError`` `signFailed` naming the program (its first word only: arguments may hold secrets).
/// Programs run on macOS and Linux; elsewhere (iOS, tvOS, watchOS, visionOS) the initializer throws.
public final class OSSExternalCredentialProvider: OSSCredentialProvider, OSSRefreshingBackedProvider, CustomStringConvertible {
    /// The command's words: the program, then its arguments.
    let arguments: [String]
    let refreshing: OSSRefreshingCredentialProvider

    /// - Parameters:
    ///   - command: the command line, e.g. `/usr/local/bin/get-credentials --profile prod`.
    ///   - timeout: how long the program may run before it is killed (default 60 s).
    ///   - refreshAhead: how long before the expiration the program runs again (default 3 minutes).
    /// - Throws: ``OSSClientError`` `invalidArgument` for an empty command or an unclosed quote, or on a platform
    ///   that cannot run programs.
    public init(command: String, timeout: Duration = .seconds(60), refreshAhead: Duration = .seconds(180)) throws {
        #if os(macOS) || os(Linux)
        let words = try Self.split(command)
        guard !words.isEmpty else { throw OSSClientError.invalidArgument("the external credentials command is empty") }
        arguments = words
        let seconds = timeout.timeInterval
        refreshing = OSSRefreshingCredentialProvider(refreshAhead: refreshAhead) {
            let program = words[0]
            let output = try await Self.run(words, timeout: seconds)
            return try Self.parse(output, program: program)
        }
        #else
        throw OSSClientError.invalidArgument("external credential programs cannot run on this platform")
        #endif
    }

    public func credentials() async throws -> OSSCredentials {
        try await refreshing.credentials()
    }

    /// Forgets the cached credentials; the next request runs the program again.
    public func invalidate() async {
        await refreshing.invalidate()
    }

    /// How many times the program was run.
    public var fetchCount: Int {
        get async { await refreshing.fetchCount }
    }

    public var description: String {
        "OSSExternalCredentialProvider(program: \(arguments.first ?? ""))"
    }

    /// Splits `command` into words as a POSIX shell does: blanks separate, `'…'` is literal, `"…"` keeps blanks
    /// and lets `\` escape `"`, `\`, `$` and `` ` ``, and `\` outside quotes escapes the next character
    /// (a `\` before a newline joins the lines).
    static func split(_ command: String) throws -> [String] {
        var words: [String] = []
        var word = ""
        var inWord = false
        var characters = command.makeIterator()
        while let character = characters.next() {
            switch character {
            case " ", "\t", "\n", "\r":
                if inWord { words.append(word) }
                word = ""
                inWord = false
            case "'":
                inWord = true
                var closed = false
                while let next = characters.next() {
                    if next == "'" { closed = true; break }
                    word.append(next)
                }
                guard closed else {
                    throw OSSClientError.invalidArgument("the external credentials command has an unclosed '")
                }
            case "\"":
                inWord = true
                var closed = false
                while let next = characters.next() {
                    if next == "\"" { closed = true; break }
                    if next == "\\" {
                        guard let escaped = characters.next() else { break }
                        if escaped == "\n" { continue }
                        if !"\"\\$`".contains(escaped) { word.append("\\") }
                        word.append(escaped)
                    } else {
                        word.append(next)
                    }
                }
                guard closed else {
                    throw OSSClientError.invalidArgument("the external credentials command has an unclosed \"")
                }
            case "\\":
                guard let escaped = characters.next() else {
                    throw OSSClientError.invalidArgument("the external credentials command ends with a \\")
                }
                if escaped == "\n" { continue }
                inWord = true
                word.append(escaped)
            default:
                inWord = true
                word.append(character)
            }
        }
        if inWord { words.append(word) }
        return words
    }

    /// What the program printed, parsed; never echoes it.
    static func parse(_ output: Data, program: String) throws -> OSSFederationToken {
        struct Printed: Decodable {
            var mode: String?
            var access_key_id: String?
            var access_key_secret: String?
            var sts_token: String?
            var expiration: String?
        }
        let name = "the external credentials program \(program)"
        let printed: Printed
        do {
            printed = try JSONDecoder().decode(Printed.self, from: output)
        } catch {
            throw OSSClientError(.signFailed, "\(name) printed no credentials JSON (\(output.count) bytes of something else)")
        }
        guard let id = printed.access_key_id, !id.isEmpty, let secret = printed.access_key_secret, !secret.isEmpty
        else {
            throw OSSClientError(.signFailed, "\(name) printed no access_key_id or access_key_secret")
        }
        let token = printed.sts_token.flatMap { $0.isEmpty ? nil : $0 }
        if printed.mode == "StsToken" && token == nil {
            throw OSSClientError(.signFailed, "\(name) printed mode StsToken without an sts_token")
        }
        var expiration: Date?
        if let text = printed.expiration, !text.isEmpty {
            guard let date = OSSCredentialHTTP.parseExpiration(text) else {
                throw OSSClientError(.signFailed, "\(name) printed an expiration that is not an ISO 8601 date")
            }
            expiration = date
        }
        // No expiration: due again at once, so the next request runs the program again (as the libraries).
        return OSSFederationToken(
            accessKeyId: id, accessKeySecret: secret, securityToken: token, expiration: expiration ?? Date())
    }

    #if os(macOS) || os(Linux)
    /// The most a program may print: credentials are a few hundred bytes.
    static let outputLimit = 1 << 20

    /// The program's standard output once read to its end (or to the limit), written by the reading thread.
    private struct Output: Sendable {
        var data = Data()
        var closed = false
        var overflowed = false
    }

    /// Runs the program and returns its standard output once it exited 0 and closed it.
    static func run(_ words: [String], timeout: TimeInterval) async throws -> Data {
        let program = words[0]
        let name = "the external credentials program \(program)"
        guard let executable = locate(program) else {
            throw OSSClientError(.signFailed, "\(name) was not found (PATH searched)")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = Array(words.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let pipe = Pipe()
        process.standardOutput = pipe
        let output = OSSLockedValue(Output())
        do {
            try process.run()
        } catch {
            throw OSSClientError(.signFailed, "\(name) could not be started", underlying: error)
        }
        // A thread of its own reads standard output to its end (the pipe's readability handler can miss the end on
        // Linux); it ends when the program and anything it started have closed the pipe, or were killed.
        let reader = pipe.fileHandleForReading
        Thread.detachNewThread {
            var data = Data()
            var overflowed = false
            while let chunk = try? reader.read(upToCount: 65_536), !chunk.isEmpty {
                guard data.count + chunk.count <= outputLimit else {
                    overflowed = true
                    break
                }
                data.append(chunk)
            }
            try? reader.close()
            output.withLockedValue { $0 = Output(data: data, closed: true, overflowed: overflowed) }
        }
        let deadline = ContinuousClock.now + .milliseconds(Int64((timeout * 1000).rounded(.up)))
        while process.isRunning || !output.withLockedValue({ $0.closed }) {
            if output.withLockedValue({ $0.overflowed }) {
                end(process)
                throw OSSClientError(.signFailed, "\(name) printed more than \(outputLimit) bytes")
            }
            guard ContinuousClock.now < deadline else {
                end(process)
                throw OSSClientError(.signFailed, "\(name) did not finish within \(timeout) s and was killed")
            }
            do {
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                end(process)
                throw OSSClientError.cancelled(error)
            }
        }
        let status = process.terminationStatus
        if process.terminationReason == .uncaughtSignal {
            throw OSSClientError(.signFailed, "\(name) was killed by signal \(status)")
        }
        guard status == 0 else {
            throw OSSClientError(.signFailed, "\(name) exited with status \(status)")
        }
        return output.withLockedValue { $0.data }
    }

    /// Kills the program, and its process group when it leads one (so a script's children go too).
    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        if getpgid(pid) == pid {
            _ = kill(-pid, SIGKILL)
        }
        _ = kill(pid, SIGKILL)
    }

    /// The program's file: the word itself when it has a `/`, else the first executable of that name on `PATH`.
    private static func locate(_ program: String) -> URL? {
        if program.contains("/") { return URL(fileURLWithPath: program) }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/" + program
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
    #endif
}
