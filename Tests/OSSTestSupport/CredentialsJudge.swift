import Foundation

/// The official `alibabacloud-credentials` package (credentials-python) resolving `provider` (`default`, `profile`,
/// `cli`) in exactly `environment` (nothing inherited; no proxy): its provider name and access key id.
package enum CredentialsJudge {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    package struct Answer: Decodable {
        package var provider: String?
        package var access_key_id: String?
        package var has_token: Bool?
        package var error: String?
    }

    package static var available: Bool {
        let python = root.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: python)
        probe.arguments = ["-c", "import alibabacloud_credentials"]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        do { try probe.run() } catch { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }

    package static func resolve(_ provider: String, environment: [String: String]) async throws -> Answer {
        let process = Process()
        process.executableURL = root.appendingPathComponent(".venv/bin/python")
        process.arguments = [root.appendingPathComponent("Tests/python/judge_credentials.py").path, provider]
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { own, _ in own }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw JudgeFailed(status: process.terminationStatus) }
        return try JSONDecoder().decode(Answer.self, from: output)
    }

    /// The judge script itself failed (its answer for a provider that finds nothing is `error`, exit 0).
    package struct JudgeFailed: Error {
        package var status: Int32
    }
}
