import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

/// `OSSURICredentialProvider` against a loopback endpoint handing out the local server's temporary credentials,
/// and `OSSExternalCredentialProvider` running real shell scripts: uploads signed with them across a refresh,
/// and garbage, errors and hangs as typed errors within the timeout.
@Suite("Credentials URI and external process")
struct URIAndExternalProviderTests {
    @Test("a credentials URI: STS-shaped JSON signs an upload, fetched again once the credentials near expiry")
    func uriUploadAcrossARefresh() async throws {
        let box = TMServerBox()
        let asked = NIOLockedValueBox(0)
        let endpoint = try await LocalHTTPServer.start { request in
            asked.withLockedValue { $0 += 1 }
            guard request.uri == "/credentials?role=app", let credential = box.server?.issueTemporaryCredentials(lifetime: .seconds(2))
            else { return .init(status: 404) }
            return .init(body: sessionCredentialsJSON(credential))
        }
        defer { Task { try? await endpoint.shutdown() } }
        let uri = endpoint.url.absoluteString + "/credentials?role=app"
        let provider = try OSSURICredentialProvider(environment: ["ALIBABA_CLOUD_CREDENTIALS_URI": uri])
        #expect(!"\(provider)".contains("role=app"), "the query is left out of descriptions")
        let faults = [LocalOSSFaultRule(operation: .uploadPart, action: .delay(milliseconds: 300))]
        try await withTMServer(provider: provider, faults: faults) { server, client in
            box.set(server)
            try await uploadResumably(client, key: "uri.bin")
            try await Task.sleep(for: .milliseconds(1200))
            try await uploadResumably(client, key: "uri-again.bin")
        }
        #expect(await provider.fetchCount >= 2, "fetched again after half the 2 s lifetime")
        #expect(asked.withLockedValue { $0 } == (await provider.fetchCount))
    }

    @Test("a credentials URI that answers an error, garbage, Code other than Success, or hangs: typed errors naming it")
    func uriErrors() async throws {
        let secretBody = Data("{\"Code\":\"Success\",\"AccessKeyId\":\"AK\",\"AccessKeySecret\":\"TopSecret\"}".utf8)
        let server = try await LocalHTTPServer.start { request in
            switch request.uri {
            case "/500": return .init(status: 500, body: secretBody)
            case "/garbage": return .init(body: Data("<html>TopSecret".utf8))
            case "/partial": return .init(body: secretBody)
            case "/denied": return .init(body: Data("{\"Code\":\"Forbidden\"}".utf8))
            case "/hang": return .init(body: Data(), delay: .seconds(30))
            default: return .init(status: 404)
            }
        }
        defer { Task { try? await server.shutdown() } }
        func error(_ path: String) async throws -> OSSClientError? {
            let provider = try OSSURICredentialProvider(
                uri: URL(string: server.url.absoluteString + path)!, timeout: .milliseconds(500), environment: [:])
            let error = await thrownClientError { _ = try await provider.credentials() }
            #expect(error?.message.contains("credentials URI \(server.url.absoluteString)\(path)") == true, "\(String(describing: error))")
            #expect(error.map { "\($0)".contains("TopSecret") } == false)
            return error
        }
        #expect(try await error("/500")?.message.contains("HTTP 500") == true)
        #expect(try await error("/garbage")?.message.contains("not the expected JSON") == true)
        #expect(try await error("/partial")?.message.contains("lack AccessKeyId") == true)
        #expect(try await error("/denied")?.message.contains("Code Forbidden") == true)
        let started = ContinuousClock.now
        let hang = try await error("/hang")
        #expect(hang?.code == .networkError && hang?.message.contains("did not answer") == true)
        #expect(ContinuousClock.now - started < .seconds(10))
        let none = await thrownClientError { _ = try OSSURICredentialProvider(environment: [:]) }
        #expect(none?.code == .invalidArgument)
        let notHTTP = await thrownClientError { _ = try OSSURICredentialProvider(uri: URL(string: "file:///etc/passwd")!) }
        #expect(notHTTP?.code == .invalidArgument)
    }

    @Test("an external program's JSON signs an upload; without an expiration it runs again for every request")
    func externalProgramUpload() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        try await withTMServer { server, _ in
            let sts = server.issueTemporaryCredentials(lifetime: .seconds(3600))
            let runs = home.root.appendingPathComponent("runs").path
            let script = try home.script(
                "issue credentials",  // a blank in the path: the command quotes it
                """
                echo run >> '\(runs)'
                echo "to stderr, never kept" >&2
                cat <<'JSON'
                {"mode": "StsToken", "access_key_id": "\(sts.accessKeyId)", "access_key_secret": "\(sts.accessKeySecret)",
                 "sts_token": "\(sts.securityToken)", "expiration": "\(Self.iso(sts.expiration))"}
                JSON
                """)
            let provider = try OSSExternalCredentialProvider(command: "'\(script)' --flag \"two words\"")
            try await uploadResumably(server, signedBy: provider, key: "external.bin")
            #expect(await provider.fetchCount == 1, "cached until shortly before the expiration")
            #expect(!"\(provider)".contains("--flag"))

            let akScript = try home.script(
                "ak",
                """
                echo ak >> '\(runs)'
                printf '{"mode":"AK","access_key_id":"%s","access_key_secret":"%s"}' '\(server.credentials.accessKeyId)' '\(server.credentials.accessKeySecret)'
                """)
            let ak = try OSSExternalCredentialProvider(command: akScript)
            _ = try await ak.credentials()
            _ = try await ak.credentials()
            #expect(await ak.fetchCount == 2, "no expiration: the program runs for every request, as in the libraries")
            try await uploadResumably(server, signedBy: ak, key: "external-ak.bin")
        }
    }

    @Test("an external program that fails, prints garbage, hangs, or cannot be found: typed errors, output never kept")
    func externalProgramErrors() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        func error(_ body: String, timeout: Duration = .seconds(10)) async throws -> OSSClientError? {
            let script = try home.script("case-\(UUID().uuidString)", body)
            let provider = try OSSExternalCredentialProvider(command: script, timeout: timeout)
            let error = await thrownClientError { _ = try await provider.credentials() }
            #expect(error?.code == .signFailed)
            #expect(error?.message.contains("external credentials program \(script)") == true, "\(String(describing: error))")
            #expect(error.map { "\($0)".contains("TopSecret") } == false)
            return error
        }
        #expect(try await error("echo TopSecret; echo TopSecret >&2; exit 3")?.message.contains("exited with status 3") == true)
        #expect(try await error("echo '{\"access_key_id\": \"TopSecret\"'")?.message.contains("printed no credentials JSON") == true)
        #expect(try await error("echo '{\"access_key_id\": \"AK\"}'")?.message.contains("no access_key_id or access_key_secret") == true)
        let noToken = "echo '{\"mode\":\"StsToken\",\"access_key_id\":\"AK\",\"access_key_secret\":\"TopSecret\"}'"
        #expect(try await error(noToken)?.message.contains("without an sts_token") == true)
        let badDate = "echo '{\"access_key_id\":\"AK\",\"access_key_secret\":\"TopSecret\",\"expiration\":\"soon\"}'"
        let dated = try await error(badDate)
        #expect(dated?.message.contains("not an ISO 8601 date") == true, "\(String(describing: dated))")
        #expect(try await error("kill -9 $$")?.message.contains("killed by signal 9") == true)
        let started = ContinuousClock.now
        let hung = try await error("sleep 30", timeout: .milliseconds(500))
        #expect(hung?.message.contains("did not finish within 0.5 s and was killed") == true)
        #expect(ContinuousClock.now - started < .seconds(10), "a timeout, not a hang")

        let missing = try OSSExternalCredentialProvider(command: "no-such-credentials-program-\(UUID().uuidString)")
        let notFound = await thrownClientError { _ = try await missing.credentials() }
        #expect(notFound?.message.contains("was not found") == true)
        for bad in ["", "   ", "prog 'unclosed", "prog \"unclosed", "prog trailing\\"] {
            let invalid = await thrownClientError { _ = try OSSExternalCredentialProvider(command: bad) }
            #expect(invalid?.code == .invalidArgument, "\(bad)")
        }
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
