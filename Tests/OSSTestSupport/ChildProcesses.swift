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

/// Where the samples' own package (`swift build --package-path Samples`, which scripts/test.sh runs first) puts its
/// debug executables; `$OSS_SAMPLES_BIN` overrides.
package let samplesBinDirectory: URL = {
    if let path = ProcessInfo.processInfo.environment["OSS_SAMPLES_BIN"] { return URL(fileURLWithPath: path) }
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
