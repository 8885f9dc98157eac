import Foundation
import OSSLocalServer
import OSSSigning
import OSSTestSupport

/// The `oss-local-server` executable running as a child process (it prints `listening on <url>` first).
final class ServerProcess {
    let process: Process
    let endpoint: URL
    let exited: AsyncStream<Int32>

    /// The executable built next to the test bundle by `swift test`.
    static func executable() -> URL? { builtExecutable("oss-local-server") }

    /// The arguments that start the server on 127.0.0.1 (an ephemeral port) over `dataDirectory`, with `bucket`.
    static func arguments(dataDirectory: URL, bucket: String) -> [String] {
        ["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDirectory.path, "--bucket", bucket]
    }

    /// Kill loops sweep a window after their request is sent, deterministically (a failing iteration can be
    /// replayed): iteration i of n kills at (7i mod n)/n of the window, an odd step that spreads the kills over
    /// the window's phases.
    static func killDelayMicroseconds(iteration: Int, of iterations: Int, window: UInt64) -> UInt64 {
        UInt64((7 * iteration) % iterations) * window / UInt64(iterations)
    }

    /// Starts `request` against this server, SIGKILLs the server `delay` microseconds later, lets the request end
    /// and starts the executable `binary` again with `arguments`.
    func killDuring(
        _ request: @escaping @Sendable (TestClient) async -> Void, afterMicroseconds delay: UInt64, restart binary: URL,
        arguments: [String]
    ) async throws -> ServerProcess {
        let client = self.client
        let task = Task { await request(client) }
        try await Task.sleep(nanoseconds: delay * 1_000)
        await stop(signal: SIGKILL)
        _ = await task.value
        return try await ServerProcess(binary, arguments: arguments)
    }

    struct LaunchFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts the executable with `arguments` and waits for its listening line; standard error goes to the file
    /// `standardError` if given.
    init(_ binary: URL, arguments: [String], standardError: URL? = nil) async throws {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        if let standardError {
            FileManager.default.createFile(atPath: standardError.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: standardError)
        }
        exited = AsyncStream<Int32> { continuation in
            process.terminationHandler = { continuation.yield($0.terminationStatus); continuation.finish() }
        }
        try process.run()
        self.process = process
        // Read the first line without blocking the cooperative pool.
        let line: String = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while let byte = try? pipe.fileHandleForReading.read(upToCount: 1), let b = byte.first, b != 0x0A {
                    bytes.append(b)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        guard line.hasPrefix("listening on "), let url = URL(string: String(line.dropFirst("listening on ".count))) else {
            if process.isRunning { process.terminate() }
            throw LaunchFailure(description: "unexpected first line: \(line)")
        }
        endpoint = url
    }

    var client: TestClient {
        TestClient(endpointURL: endpoint, credentials: OSSCredentials(
            accessKeyId: LocalOSSServerConfiguration.defaultAccessKeyId,
            accessKeySecret: LocalOSSServerConfiguration.defaultAccessKeySecret))
    }

    /// Sends `signal` and waits for the process to exit; returns its termination status.
    @discardableResult
    func stop(signal: Int32) async -> Int32? {
        if process.isRunning { kill(process.processIdentifier, signal) }
        var status: Int32?
        for await s in exited { status = s }
        return status
    }
}
