import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// PostObject judged by the official Python clients (Tests/python/judge_post_object.py): forms signed with
/// alibabacloud-oss-v2's primitives are accepted by the local server, and the SDK's forms have the policy bytes and
/// signatures a Python computation gives for the same inputs, and are accepted too; oss2 reads every object back.
@Suite("PostObject judged by the official Python clients")
struct PostObjectJudgeTests {
    @Test(arguments: [false, true])
    func officialFormsAndTheSDKsFormsAgree(sts: Bool) async throws {
        let python = BucketConfigurationJudgeTests.packageRoot.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            Issue.record("No Python venv at \(python.path): run scripts/test.sh (it creates .venv with oss2 and alibabacloud-oss-v2).")
            return
        }
        let stsCredentials = OSSCredentials(
            accessKeyId: "STS.LocalTempKey", accessKeySecret: "LocalTempSecret", securityToken: "CAIS+Local/STS=Token")
        try await withServerAndClient(version: .v1, sts: sts) { server, v1Client in
            let credentials = sts ? stsCredentials : server.credentials
            var arguments = [
                "judge_post_object.py", "--bucket", "bkt", "--endpoint", server.endpoint.absoluteString,
                "--access-key-id", credentials.accessKeyId, "--access-key-secret", credentials.accessKeySecret,
            ]
            if let token = credentials.securityToken { arguments += ["--security-token", token] }
            let directory = BucketConfigurationJudgeTests.packageRoot.appendingPathComponent("Tests/python")
            let (official, officialLog) = try await runPythonScript(python, arguments + ["--phase", "official"], in: directory)
            #expect(official == 0, "judge_post_object.py official failed:\n\(officialLog)")

            var configuration = v1Client.configuration
            configuration.signatureVersion = .v4
            let v4Client = try OSSClient(
                endpoint: server.endpoint, credentialProvider: credentials.provider, configuration: configuration)
            var forms: [[String: Any]] = []
            for (label, client) in [("v1", v1Client), ("v4", v4Client)] {
                let key = "sdk/\(label)/ünï cödé.bin"
                let policy = OSSPostPolicy(
                    expiration: Date().addingTimeInterval(600),
                    conditions: [
                        .key(key), .contentLengthRange(1...4096), .metadata("from", .equals("swift")),
                        .field("x-oss-meta-note", .startsWith("")),
                    ])
                let form = try await client.postPolicyForm(bucket: "bkt", policy: policy)
                forms.append([
                    "label": label, "url": form.url, "key": key, "policyDocument": form.policyDocument,
                    "fields": form.fields.map { [$0.name, $0.value] },
                    "content": Data((0..<2000).map { UInt8(truncatingIfNeeded: $0 * 7) }).base64EncodedString(),
                ])
            }
            try await v4Client.shutdown()
            let file = try temporaryURL("sdk-forms-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: forms).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let (sdk, sdkLog) = try await runPythonScript(
                python, arguments + ["--phase", "sdk", "--forms", file.path], in: directory)
            #expect(sdk == 0, "judge_post_object.py sdk failed:\n\(sdkLog)")
        }
    }
}
