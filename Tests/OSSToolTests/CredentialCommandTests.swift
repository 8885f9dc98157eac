import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `oss config`, `--profile`, the default chain and `oss whoami`, run as a user would against the local server (and,
/// for a role profile, the loopback STS stand-in); the official credentials library reads the file `oss config`
/// wrote.
@Suite("oss config, --profile, the default chain, whoami")
struct CredentialCommandTests {
    static let roleArn = "acs:ram::1234567890123456:role/oss-cli"
    static let userKeyId = "LTAI5tCLIUser"
    static let userSecret = "cli-user-secret"

    /// The tool against `server` with no OSS_ACCESS_KEY_* variables: only a profile or the default chain signs.
    static func bareTool(_ server: LocalOSSServer, home: URL) -> ToolRunner {
        var tool = ToolRunner(server: server, home: home)
        tool.environment["OSS_ACCESS_KEY_ID"] = nil
        tool.environment["OSS_ACCESS_KEY_SECRET"] = nil
        return tool
    }

    /// Writes `lines` as the standard input of `oss config set`.
    static func input(_ lines: [String], in work: URL) throws -> URL {
        let url = work.appendingPathComponent("stdin-\(UUID().uuidString)")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
        return url
    }

    @Test("config set writes an AK profile (0600, secret from stdin); --profile and the default chain sign with it; whoami masks the id")
    func akProfileSignsEveryCommand() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer { server in
            let tool = Self.bareTool(server, home: work)
            let id = server.credentials.accessKeyId
            let secret = server.credentials.accessKeySecret
            var r = try await tool.run(["ls"])
            #expect(r.status == 2 && r.stderr.contains("no credentials from the default chain"), "\(r.stderr)")

            r = try await tool.run(
                ["config", "set", "--profile", "dev", "--access-key-id", id, "--region", "cn-hangzhou"],
                input: try Self.input([secret], in: work))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(!r.stdout.contains(secret) && !r.stderr.contains(secret))
            let path = work.appendingPathComponent(".aliyun/config.json").path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
            let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
            #expect(written?["current"] as? String == "dev")

            r = try await tool.run(["mb", "oss://cred-bucket", "--profile", "dev"])
            #expect(r.status == 0, "\(r.stderr)")
            let file = work.appendingPathComponent("a.bin")
            _ = try writeFile(file, count: 3000, seed: 3)
            r = try await tool.run(["cp", file.path, "oss://cred-bucket/a.bin", "--profile", "dev", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            // No flag, no variable: the default chain reads the CLI's current profile.
            r = try await tool.run(["ls", "oss://cred-bucket/"])
            #expect(r.status == 0 && r.stdout.contains("oss://cred-bucket/a.bin"), "\(r.stdout)\(r.stderr)")

            r = try await tool.run(["whoami", "--profile", "dev"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("aliyun CLI profile dev (AK) in \(path)"), "\(r.stdout)")
            #expect(r.stdout.contains("access key id:  ***\(id.suffix(3))\n"), "\(r.stdout)")
            #expect(r.stdout.contains("never (a long-term access key)"), "\(r.stdout)")
            #expect(!r.stdout.contains(id) && !r.stdout.contains(secret))
            r = try await tool.run(["whoami"])
            #expect(r.stdout.contains("default chain: aliyun CLI profile dev (AK)"), "\(r.stdout)")
            // The environment still wins over the chain when it names credentials.
            r = try await ToolRunner(server: server, home: work).run(["whoami"])
            #expect(r.stdout.contains("environment (OSS_ACCESS_KEY_ID)"), "\(r.stdout)")

            // A second profile with a wrong secret: list shows both, use switches what the chain reads.
            r = try await tool.run(
                ["config", "set", "--profile", "wrong", "--access-key-id", id], input: try Self.input(["not-it"], in: work))
            #expect(r.status == 0 && !r.stdout.contains("(current)"), "\(r.stdout)\(r.stderr)")
            r = try await tool.run(["config", "list"])
            #expect(r.stdout.contains("dev *\tAK\t***\(id.suffix(3))\tcn-hangzhou"), "\(r.stdout)")
            #expect(r.stdout.contains("wrong\tAK\t***\(id.suffix(3))\t-"), "\(r.stdout)")
            #expect(!r.stdout.contains(secret) && !r.stdout.contains("not-it"))
            r = try await tool.run(["config", "use", "wrong"])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["ls", "oss://cred-bucket/"])
            #expect(r.status == 1 && r.stderr.contains("SignatureDoesNotMatch"), "\(r.stderr)")

            if CredentialsJudge.available {
                // credentials-python reads the file oss config wrote: the current profile, and one by name.
                let theirs = try await CredentialsJudge.resolve("cli", environment: ["HOME": work.path])
                #expect(theirs.error == nil && theirs.access_key_id == id && theirs.has_token == false, "\(theirs)")
                let named = try await CredentialsJudge.resolve(
                    "cli", environment: ["HOME": work.path, "ALIBABA_CLOUD_PROFILE": "dev"])
                #expect(named.access_key_id == id, "\(named)")
            }
        }
    }

    @Test("an StsToken profile, and a RamRoleArn profile through the loopback STS: uploads, whoami's expiry, the official library agrees")
    func temporaryCredentialProfiles() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer { server in
            let tool = Self.bareTool(server, home: work)
            let file = work.appendingPathComponent("b.bin")
            _ = try writeFile(file, count: 5000, seed: 5)
            var r = try await ToolRunner(server: server, home: work).run(["mb", "oss://sts-bucket"])
            #expect(r.status == 0, "\(r.stderr)")

            let token = server.issueTemporaryCredentials(lifetime: .seconds(3600))
            r = try await tool.run(
                ["config", "set", "--profile", "sts", "--mode", "StsToken", "--access-key-id", token.accessKeyId],
                input: try Self.input([token.accessKeySecret, token.securityToken], in: work))
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["cp", file.path, "oss://sts-bucket/sts.bin", "--profile", "sts", "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["whoami", "--profile", "sts"])
            #expect(r.stdout.contains("(StsToken)") && r.stdout.contains("security token: yes"), "\(r.stdout)")
            #expect(!r.stdout.contains(token.securityToken) && !r.stdout.contains(token.accessKeySecret))

            // RamRoleArn: the user's key assumes the role at the STS stand-in, which hands out one set of credentials
            // (so that the official library's answer can be compared).
            let issued = server.issueTemporaryCredentials(lifetime: .seconds(3600))
            let sts = try await LocalSTSService.start(
                .init(roleARNs: [Self.roleArn], accessKeys: [Self.userKeyId: Self.userSecret])
            ) { _ in issued }
            defer { Task { try? await sts.shutdown() } }
            r = try await tool.run(
                [
                    "config", "set", "--profile", "role", "--mode", "RamRoleArn", "--access-key-id", Self.userKeyId,
                    "--ram-role-arn", Self.roleArn, "--role-session-name", "oss-cli-test", "--expired-seconds", "900",
                ], input: try Self.input([Self.userSecret], in: work))
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(
                ["cp", file.path, "oss://sts-bucket/role.bin", "--profile", "role", "--sts-endpoint", sts.url.absoluteString,
                 "--checkpoint-dir", work.path])
            #expect(r.status == 0, "\(r.stderr)")
            let call = try #require(sts.calls.first)
            #expect(call.action == "AssumeRole" && call.errorCode == nil, "\(call)")
            #expect(call.parameters["RoleSessionName"] == "oss-cli-test" && call.parameters["DurationSeconds"] == "900")
            var env = tool
            env.environment["OSS_STS_ENDPOINT"] = sts.url.absoluteString
            r = try await env.run(["whoami", "--profile", "role"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("aliyun CLI profile role (RamRoleArn)"), "\(r.stdout)")
            #expect(r.stdout.contains("***\(issued.accessKeyId.suffix(3))"), "\(r.stdout)")
            let expires = OSSDateFormat.iso8601Milliseconds(issued.expiration)
            #expect(r.stdout.contains("expires:        \(expires) (in 59 min") || r.stdout.contains("(in 60 min"), "\(r.stdout)")
            #expect(!r.stdout.contains(Self.userSecret) && !r.stdout.contains(issued.securityToken))

            if CredentialsJudge.available {
                let theirs = try await CredentialsJudge.resolve(
                    "cli",
                    environment: [
                        "HOME": work.path, "ALIBABA_CLOUD_PROFILE": "role", "JUDGE_STS_ENDPOINT": sts.url.absoluteString,
                    ])
                #expect(theirs.access_key_id == issued.accessKeyId && theirs.has_token == true, "\(theirs)")
                let sessions = sts.calls.map { $0.parameters["RoleSessionName"] }
                #expect(sessions.allSatisfy { $0 == "oss-cli-test" }, "\(sessions)")
            }
        }
    }

    @Test("a missing profile, a malformed file, a missing secret: exit 2 naming the file and profile; a malformed file is never overwritten")
    func badProfilesAreClearErrors() async throws {
        let work = try makeWorkDirectory()
        defer { try? FileManager.default.removeItem(at: work) }
        try await withLocalOSSServer { server in
            let tool = Self.bareTool(server, home: work)
            let path = work.appendingPathComponent(".aliyun/config.json").path
            var r = try await tool.run(
                ["config", "set", "--profile", "dev", "--access-key-id", "LTAI5tx"], input: try Self.input([""], in: work))
            #expect(r.status == 2 && r.stderr.contains("no access key secret on standard input"), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
            r = try await tool.run(["config", "set", "--profile", "r", "--mode", "RamRoleArn", "--access-key-id", "LTAI5tx"],
                input: try Self.input(["s"], in: work))
            #expect(r.status == 2 && r.stderr.contains("needs --ram-role-arn"), "\(r.stderr)")

            r = try await tool.run(["config", "set", "--profile", "dev", "--access-key-id", "LTAI5tx"], input: try Self.input(["s3cret"], in: work))
            #expect(r.status == 0, "\(r.stderr)")
            r = try await tool.run(["ls", "--profile", "nope"])
            #expect(r.status == 2, "\(r.stderr)")
            #expect(r.stderr.contains("\(path) has no profile nope (it has: dev)"), "\(r.stderr)")
            r = try await tool.run(["whoami", "--profile", "nope"])
            #expect(r.status == 2 && r.stderr.contains("has no profile nope"), "\(r.stderr)")

            try Data(#"{"current": "dev", "profiles": [ {"name": "dev", "#.utf8).write(to: URL(fileURLWithPath: path))
            r = try await tool.run(["ls", "--profile", "dev"])
            #expect(r.status == 2 && r.stderr.contains("\(path) is not the CLI's JSON"), "\(r.stderr)")
            r = try await tool.run(["whoami"])
            #expect(r.status == 2 && r.stderr.contains("\(path) is not the CLI's JSON"), "\(r.stderr)")
            r = try await tool.run(["config", "set", "--profile", "dev", "--access-key-id", "x"], input: try Self.input(["s"], in: work))
            #expect(r.status == 2 && r.stderr.contains("\(path) is not the aliyun CLI's JSON configuration"), "\(r.stderr)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == #"{"current": "dev", "profiles": [ {"name": "dev", "#)
        }
    }
}
