import Foundation
import OSSLocalServer
import OSSSigning
import OSSTestSupport
import Testing

/// Runs the official Python clients' judge suites (Tests/python) against an in-process server.
@Suite struct PythonJudgeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let sts = OSSCredentials(accessKeyId: "STS.JudgeKey", accessKeySecret: "JudgeStsSecret", securityToken: "CAIS+Judge/Token=")

    @Test(arguments: ["judge_oss2.py", "judge_v2.py", "judge_oss2_callbacks_listings.py", "judge_versioning.py"])
    func officialClient(script: String) async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record(
                "No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        let (status, log) = try await Self.run(script, python: python)
        #expect(status == 0, "\(script) failed (exit \(status)):\n\(log)")
    }

    /// Runs one judge script against a fresh in-process server; returns its exit status and output.
    /// `extraArguments` follow the endpoint and credentials.
    static func run(_ script: String, python: URL, extraArguments: [String] = []) async throws -> (Int32, String) {
        try await withLocalOSSServer(.init(stsCredentials: [Self.sts])) { server in
            return try await runPythonScript(
                python,
                [
                    script, "--endpoint", server.endpoint.absoluteString,
                    "--access-key-id", server.credentials.accessKeyId,
                    "--access-key-secret", server.credentials.accessKeySecret,
                    "--sts-access-key-id", Self.sts.accessKeyId,
                    "--sts-access-key-secret", Self.sts.accessKeySecret,
                    "--sts-security-token", Self.sts.securityToken ?? "",
                ] + extraArguments, in: Self.packageRoot.appendingPathComponent("Tests/python"))
        }
    }
}
