import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// The official Python clients judge access control on the local server (Tests/python/judge_access_control.py):
/// alibabacloud-oss-v2 puts a policy, referer rules, public access blocks and requester-pays, and shows each
/// refusing one request and letting another through; oss2 reads anonymously and meets the policy grammar check.
@Suite("Access control judged by the official Python clients")
struct AccessControlJudgeTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func officialClientsMeetTheServersAccessControl() async throws {
        let python = Self.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        let other = AccessControlArticleTests.other
        var configuration = LocalOSSServerConfiguration(region: "cn-hangzhou", buckets: ["judge-access"])
        configuration.users = [other]
        try await withLocalOSSServer(configuration) { server in
            let (status, log) = try await runPythonScript(
                python,
                [
                    "judge_access_control.py", "--bucket", "judge-access", "--endpoint", server.endpoint.absoluteString,
                    "--access-key-id", server.credentials.accessKeyId, "--access-key-secret", server.credentials.accessKeySecret,
                    "--other-access-key-id", other.accessKeyId, "--other-access-key-secret", other.accessKeySecret,
                    "--other-uid", other.uid,
                ], in: Self.packageRoot.appendingPathComponent("Tests/python"))
            #expect(status == 0, "judge_access_control.py failed:\n\(log)")
        }
    }
}
