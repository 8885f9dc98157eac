import Dispatch
import Foundation

/// The executable `name` (`oss`, `oss-local-server`) that `swift build` put in the products directory beside the
/// test bundle; nil when it is not built.
package func builtExecutable(_ name: String) -> URL? {
    var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = directory.appendingPathComponent(name)
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        directory.deleteLastPathComponent()
    }
    return nil
}

/// Where the samples' debug executables are: `$OSS_SAMPLES_BIN` when set; else the products directory beside the test
/// bundle when the samples were built there (scripts/test.sh builds the samples' package into this package's
/// `.build`, so the packages both use are compiled once); else the samples' own `Samples/.build/debug`
/// (`swift build --package-path Samples`).
package let samplesBinDirectory: URL = {
    if let path = ProcessInfo.processInfo.environment["OSS_SAMPLES_BIN"] { return URL(fileURLWithPath: path) }
    if let beside = builtExecutable("put-object") { return beside.deletingLastPathComponent() }
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return repository.appendingPathComponent("Samples/.build/debug")
}()

/// The sample executable `name` (`resumable-upload`, `put-object`...); nil when it is not built.
package func sampleBinary(_ name: String) -> URL? {
    let candidate = samplesBinDirectory.appendingPathComponent(name)
    return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
}

/// Reads a pipe to its end on a Dispatch thread, never on the small cooperative pool an in-process server needs.
package func readToEnd(_ pipe: Pipe) async -> Data {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: pipe.fileHandleForReading.readDataToEndOfFile())
        }
    }
}

/// Waits for a child process without blocking a cooperative thread.
package func waitForExit(_ process: Process) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            process.waitUntilExit()
            continuation.resume()
        }
    }
}

/// Runs `python arguments...` in `directory` (the judge scripts under Tests/python) to completion; returns its exit
/// status and its output (standard output and error together, also printed so a failing test shows it).
package func runPythonScript(_ python: URL, _ arguments: [String], in directory: URL) async throws -> (Int32, String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("judge-\(UUID().uuidString).log")
    FileManager.default.createFile(atPath: output.path, contents: nil)
    defer { try? FileManager.default.removeItem(at: output) }
    let handle = try FileHandle(forWritingTo: output)
    let process = Process()
    process.executableURL = python
    process.currentDirectoryURL = directory
    process.arguments = arguments
    process.standardOutput = handle
    process.standardError = handle
    let status: Int32 = try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
    try handle.close()
    let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
    print("---- \(arguments.first ?? "python") ----\n\(log)")
    return (status, log)
}
