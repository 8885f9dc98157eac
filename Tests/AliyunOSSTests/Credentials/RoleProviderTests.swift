import AliyunOSS
import Foundation
import NIOConcurrencyHelpers
import OSSLocalServer
import OSSTestSupport
import Testing

/// A loopback STS (`LocalSTSService`) whose credentials the local OSS server issued, an OIDC identity provider whose
/// tokens it checks, and a RAM user allowed to call `AssumeRole`.
struct STSFixture {
    static let roleArn = "acs:ram::1234567890123456:role/oss-uploader"
    static let otherRoleArn = "acs:ram::1234567890123456:role/oss-reader"
    static let oidcProviderArn = "acs:ram::1234567890123456:oidc-provider/ack-rrsa-local"
    static let userKeyId = "LTAI5tLocalUser"
    static let userSecret = "local-user-secret"

    let sts: LocalSTSService
    let identityProvider: LocalOIDCIdentityProvider
    let box: TMServerBox

    /// - Parameter fixed: answer every call with these credentials instead of fresh ones (the judge compares them).
    static func start(fixed: NIOLockedValueBox<LocalOSSTemporaryCredential?>? = nil) async throws -> STSFixture {
        let box = TMServerBox()
        let identityProvider = try LocalOIDCIdentityProvider(
            issuer: "https://oidc-ack.local/clusters/c1", audience: "sts.aliyuncs.com")
        let configuration = LocalSTSService.Configuration(
            roleARNs: [roleArn, otherRoleArn], accessKeys: [userKeyId: userSecret],
            oidcProviders: [try .init(arn: oidcProviderArn, identityProvider: identityProvider)])
        let sts = try await LocalSTSService.start(configuration) { duration in
            if let credential = fixed?.withLockedValue({ $0 }) { return credential }
            return box.server?.issueTemporaryCredentials(lifetime: duration)
        } temporaryCredential: { id in
            box.server?.temporaryCredential(accessKeyId: id)
        }
        return STSFixture(sts: sts, identityProvider: identityProvider, box: box)
    }

    var endpoint: String { sts.url.absoluteString }

    var user: OSSStaticCredentialProvider {
        OSSStaticCredentialProvider(accessKeyId: Self.userKeyId, accessKeySecret: Self.userSecret)
    }

    /// Writes a fresh service-account token to `home`'s `token` file; returns its path.
    @discardableResult
    func writeToken(_ home: CredentialHome, lifetime: Duration = .seconds(3600), audience: String? = nil) throws -> String {
        let token = try identityProvider.token(
            subject: "system:serviceaccount:default:uploader", lifetime: lifetime, audience: audience)
        return try home.write(token, to: "token")
    }

    /// The environment ACK sets for RRSA, pointing at `home`'s token.
    func rrsaEnvironment(_ home: CredentialHome, session: String = "rrsa-session") -> [String: String] {
        home.environment([
            "ALIBABA_CLOUD_ROLE_ARN": Self.roleArn, "ALIBABA_CLOUD_OIDC_PROVIDER_ARN": Self.oidcProviderArn,
            "ALIBABA_CLOUD_OIDC_TOKEN_FILE": home.root.appendingPathComponent("token").path,
            "ALIBABA_CLOUD_ROLE_SESSION_NAME": session,
        ])
    }

    func stop() async {
        try? await sts.shutdown()
    }
}

/// `OSSRAMRoleCredentialProvider` and `OSSOIDCRoleCredentialProvider` against the STS stand-in: uploads across a
/// refresh, the parameters STS receives, role chaining, the profile modes and the default chain's OIDC step, every
/// failure as a typed error naming the provider, and the official credentials library resolving the same settings to
/// the same credentials.
@Suite("RAM role and OIDC role credentials")
struct RoleProviderTests {
    @Test("AssumeRole: a multipart upload across a refresh; STS got the session name, policy, duration, external id")
    func ramRoleUploadAcrossARefresh() async throws {
        let fixture = try await STSFixture.start()
        defer { Task { await fixture.stop() } }
        let policy = #"{"Version":"1","Statement":[{"Effect":"Allow","Action":"oss:*","Resource":"*"}]}"#
        let provider = try OSSRAMRoleCredentialProvider(
            source: fixture.user, roleArn: STSFixture.roleArn, roleSessionName: "uploader-1", policy: policy,
            durationSeconds: 1800, externalId: "abc-123", stsEndpoint: fixture.endpoint, environment: [:])
        try await withTMServer(provider: provider) { server, client in
            fixture.box.set(server)
            try await RejectionRefreshTests.uploadAcrossARevocation(server, client, key: "role.bin")
        }
        #expect(await provider.fetchCount == 2)
        let calls = fixture.sts.calls
        #expect(calls.count == 2 && calls.allSatisfy { $0.errorCode == nil }, "\(calls)")
        let call = try #require(calls.first)
        #expect(call.action == "AssumeRole" && call.httpMethod == "POST")
        #expect(call.parameters["RoleSessionName"] == "uploader-1")
        #expect(call.parameters["Policy"] == policy)
        #expect(call.parameters["DurationSeconds"] == "1800")
        #expect(call.parameters["ExternalId"] == "abc-123")
        #expect(call.parameters["AccessKeyId"] == STSFixture.userKeyId)
        #expect(!"\(provider)".contains(STSFixture.userSecret))
    }

    @Test("AssumeRoleWithOIDC from the RRSA environment: an upload across a refresh, the token file read each time")
    func oidcUploadAcrossARefreshRereadingTheToken() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let fixture = try await STSFixture.start()
        defer { Task { await fixture.stop() } }
        try fixture.writeToken(home)
        let provider = try OSSOIDCRoleCredentialProvider(
            stsEndpoint: fixture.endpoint, environment: fixture.rrsaEnvironment(home))
        try await withTMServer(provider: provider) { server, client in
            fixture.box.set(server)
            try await RejectionRefreshTests.uploadAcrossARevocation(server, client, key: "oidc.bin")
            // The token file now holds an expired token: the next refresh reads it and STS refuses it.
            try fixture.writeToken(home, lifetime: .seconds(-60))
            await provider.invalidate()
            let error = await thrownClientError { _ = try await provider.credentials() }
            #expect(error?.code == .signFailed)
            #expect((error?.underlying as? OSSSTSError)?.code == "AuthenticationFail.OIDCToken.Expired")
            #expect(error?.message.contains("the OIDC role provider (role \(STSFixture.roleArn))") == true)
        }
        let calls = fixture.sts.calls
        #expect(calls.map(\.errorCode) == [nil, nil, "AuthenticationFail.OIDCToken.Expired"])
        #expect(calls.first?.parameters["RoleSessionName"] == "rrsa-session")
        #expect(calls.first?.parameters["OIDCProviderArn"] == STSFixture.oidcProviderArn)
        #expect(calls.first?.parameters["OIDCToken"] == nil, "the stand-in never records the token")
    }

    @Test("the default chain answers with the OIDC step when the RRSA variables are set")
    func defaultChainOIDC() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let fixture = try await STSFixture.start()
        defer { Task { await fixture.stop() } }
        try fixture.writeToken(home)
        let chain = OSSDefaultCredentialProvider(environment: fixture.rrsaEnvironment(home), stsEndpoint: fixture.endpoint)
        try await withTMServer(provider: chain) { server, client in
            fixture.box.set(server)
            try await RejectionRefreshTests.uploadAcrossARevocation(server, client, key: "chain-oidc.bin")
        }
        #expect(chain.answeredBy == "OIDC role")
        #expect(fixture.sts.calls.map(\.action) == ["AssumeRoleWithOIDC", "AssumeRoleWithOIDC"])
    }

    @Test("profiles: ram_role_arn and oidc_role_arn in credentials.ini; RamRoleArn, OIDC, ChainableRamRoleArn in config.json")
    func profileModes() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let fixture = try await STSFixture.start()
        defer { Task { await fixture.stop() } }
        let token = try fixture.writeToken(home)
        try home.writeCredentialsFile(
            """
            [default]
            type = ram_role_arn
            access_key_id = \(STSFixture.userKeyId)
            access_key_secret = \(STSFixture.userSecret)
            role_arn = \(STSFixture.roleArn)
            role_session_name = ini-session

            [rrsa]
            type = oidc_role_arn
            role_arn = \(STSFixture.roleArn)
            oidc_provider_arn = \(STSFixture.oidcProviderArn)
            oidc_token_file_path = \(token)
            """)
        try home.writeCLIConfig(
            current: "role",
            [
                [
                    "name": "role", "mode": "RamRoleArn", "access_key_id": STSFixture.userKeyId,
                    "access_key_secret": STSFixture.userSecret, "ram_role_arn": STSFixture.roleArn,
                    "ram_session_name": "cli-session", "expired_seconds": "900",
                ],
                [
                    "name": "oidc", "mode": "OIDC", "ram_role_arn": STSFixture.roleArn,
                    "oidc_provider_arn": STSFixture.oidcProviderArn, "oidc_token_file": token,
                ],
                [
                    "name": "chained", "mode": "ChainableRamRoleArn", "source_profile": "role",
                    "ram_role_arn": STSFixture.otherRoleArn, "ram_session_name": "chained-session",
                ],
                ["name": "loop-a", "mode": "ChainableRamRoleArn", "source_profile": "loop-b", "ram_role_arn": "x"],
                ["name": "loop-b", "mode": "ChainableRamRoleArn", "source_profile": "loop-a", "ram_role_arn": "x"],
            ])
        let environment = home.environment()
        let providers: [(String, any OSSCredentialProvider)] = [
            ("ini-session", OSSProfileCredentialProvider(stsEndpoint: fixture.endpoint, environment: environment)),
            (
                "", OSSProfileCredentialProvider(profileName: "rrsa", stsEndpoint: fixture.endpoint, environment: environment)
            ),
            ("cli-session", try OSSCLIProfileCredentialProvider(stsEndpoint: fixture.endpoint, environment: environment)),
            (
                "", try OSSCLIProfileCredentialProvider(profileName: "oidc", stsEndpoint: fixture.endpoint, environment: environment)
            ),
            (
                "chained-session",
                try OSSCLIProfileCredentialProvider(
                    profileName: "chained", stsEndpoint: fixture.endpoint, environment: environment)
            ),
        ]
        try await withTMServer { server, _ in
            fixture.box.set(server)
            var configuration = OSSClientConfiguration(region: "cn-hangzhou")
            configuration.transport = transportUnderTest
            for (index, (session, provider)) in providers.enumerated() {
                let before = fixture.sts.calls.count
                try await withClient(of: server, provider, configuration) { server, client in
                    try await RejectionRefreshTests.uploadAcrossARevocation(server, client, key: "profile-\(index).bin")
                }
                let calls = fixture.sts.calls.dropFirst(before)
                // The chained role's source (a role too) was revoked with it: STS refuses it once, it is refreshed.
                let refused = calls.compactMap(\.errorCode)
                #expect(refused == (index == 4 ? ["InvalidSecurityToken.Expired"] : []), "\(index): \(calls)")
                if !session.isEmpty {
                    #expect(calls.last?.parameters["RoleSessionName"] == session, "\(index)")
                }
            }
        }
        let chained = fixture.sts.calls.filter { $0.parameters["RoleArn"] == STSFixture.otherRoleArn }
        #expect(!chained.isEmpty && chained.allSatisfy { $0.parameters["AccessKeyId"]?.hasPrefix("STS.") == true })
        #expect(fixture.sts.calls.contains { $0.parameters["DurationSeconds"] == "900" })
        let loop = try OSSCLIProfileCredentialProvider(profileName: "loop-a", stsEndpoint: fixture.endpoint, environment: environment)
        let loopError = await thrownClientError { _ = try await loop.credentials() }
        #expect(loopError?.message.contains("source_profile chain loops (loop-a → loop-b → loop-a)") == true, "\(String(describing: loopError))")
    }

    @Test("bad input: settings, a missing token file, STS refusals, garbage, a hanging STS: typed errors naming the provider")
    func typedErrors() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let fixture = try await STSFixture.start()
        defer { Task { await fixture.stop() } }
        let environment = fixture.rrsaEnvironment(home)
        // Settings.
        let noRole = await thrownClientError { _ = try OSSRAMRoleCredentialProvider(source: fixture.user, environment: [:]) }
        #expect(noRole?.code == .invalidArgument)
        let short = await thrownClientError {
            _ = try OSSRAMRoleCredentialProvider(source: fixture.user, roleArn: STSFixture.roleArn, durationSeconds: 600)
        }
        #expect(short?.code == .invalidArgument && short?.message.contains("900") == true)
        var partial = environment
        partial["ALIBABA_CLOUD_OIDC_TOKEN_FILE"] = nil
        let noFile = await thrownClientError { _ = try OSSOIDCRoleCredentialProvider(environment: partial) }
        #expect(noFile?.code == .invalidArgument && noFile?.message.contains("ALIBABA_CLOUD_OIDC_TOKEN_FILE") == true)
        let badEndpoint = await thrownClientError {
            _ = try OSSOIDCRoleCredentialProvider(stsEndpoint: "ftp://sts.local", environment: environment)
        }
        #expect(badEndpoint?.code == .invalidArgument)

        func error(_ provider: any OSSCredentialProvider) async -> OSSClientError? {
            let error = await thrownClientError { _ = try await provider.credentials() }
            let text = "\(String(describing: error))"
            #expect(!text.contains(STSFixture.userSecret) && !text.contains("eyJ"), "no secret or token: \(text)")
            return error
        }
        // A missing token file (nothing sent to STS).
        let oidc = try OSSOIDCRoleCredentialProvider(stsEndpoint: fixture.endpoint, environment: environment)
        let missing = await error(oidc)
        #expect(missing?.code == .signFailed)
        #expect(missing?.message.contains("the OIDC role provider (role \(STSFixture.roleArn)): the OIDC token file") == true)
        #expect(missing?.message.contains("does not exist") == true)
        // STS refusals, with STS's code.
        func stsCode(_ provider: any OSSCredentialProvider) async -> String? {
            let failure = await error(provider)
            #expect(failure?.code == .signFailed)
            return (failure?.underlying as? OSSSTSError)?.code
        }
        let wrongSecret = OSSStaticCredentialProvider(accessKeyId: STSFixture.userKeyId, accessKeySecret: "wrong")
        #expect(
            await stsCode(try OSSRAMRoleCredentialProvider(
                source: wrongSecret, roleArn: STSFixture.roleArn, stsEndpoint: fixture.endpoint, environment: [:]))
                == "SignatureDoesNotMatch")
        let stranger = OSSStaticCredentialProvider(accessKeyId: "LTAIstranger", accessKeySecret: "x")
        #expect(
            await stsCode(try OSSRAMRoleCredentialProvider(
                source: stranger, roleArn: STSFixture.roleArn, stsEndpoint: fixture.endpoint, environment: [:]))
                == "InvalidAccessKeyId.NotFound")
        #expect(
            await stsCode(try OSSRAMRoleCredentialProvider(
                source: fixture.user, roleArn: "acs:ram::1:role/nobody", stsEndpoint: fixture.endpoint, environment: [:]))
                == "EntityNotExist.Role")
        #expect(
            await stsCode(try OSSRAMRoleCredentialProvider(
                source: fixture.user, roleArn: STSFixture.roleArn, durationSeconds: 7200, stsEndpoint: fixture.endpoint,
                environment: [:])) == "InvalidParameter.DurationSeconds")
        #expect(
            await stsCode(try OSSRAMRoleCredentialProvider(
                source: fixture.user, roleArn: STSFixture.roleArn, roleSessionName: "no spaces allowed",
                stsEndpoint: fixture.endpoint, environment: [:])) == "InvalidParameter.RoleSessionName")
        #expect(
            await stsCode(try OSSRAMRoleCredentialProvider(
                source: fixture.user, roleArn: STSFixture.roleArn, policy: "{not json", stsEndpoint: fixture.endpoint,
                environment: [:])) == "InvalidParameter.PolicyGrammar")
        try fixture.writeToken(home, audience: "someone-else")
        #expect(await stsCode(oidc) == "AuthenticationFail.OIDCToken.AudienceNotMatch")
        let impostor = try LocalOIDCIdentityProvider(issuer: fixture.identityProvider.issuer, audience: "sts.aliyuncs.com")
        try home.write(try impostor.token(subject: "intruder"), to: "token")
        #expect(await stsCode(oidc) == "AuthenticationFail.OIDCToken.InvalidSignature")
        try home.write("not-a-jwt", to: "token")
        #expect(await stsCode(oidc) == "AuthenticationFail.OIDCToken.Invalid")
        try fixture.writeToken(home)
        var unknownProvider = environment
        unknownProvider["ALIBABA_CLOUD_OIDC_PROVIDER_ARN"] = "acs:ram::1:oidc-provider/none"
        #expect(
            await stsCode(try OSSOIDCRoleCredentialProvider(stsEndpoint: fixture.endpoint, environment: unknownProvider))
                == "AuthenticationFail.NoPermission")

        // Garbage, a 200 without credentials, and an STS that never answers.
        let odd = try await LocalHTTPServer.start { request in
            switch request.uri {
            case "/garbage/": return .init(status: 200, contentType: "text/html", body: Data("<html>local-user-secret".utf8))
            case "/empty/": return .init(body: Data(#"{"RequestId":"r","Credentials":{"AccessKeyId":"STS.x"}}"#.utf8))
            case "/down/": return .init(status: 503, contentType: "text/html", body: Data("<html>busy".utf8))
            default: return .init(body: Data(), delay: .seconds(30))
            }
        }
        defer { Task { try? await odd.shutdown() } }
        func role(_ path: String) throws -> OSSRAMRoleCredentialProvider {
            try OSSRAMRoleCredentialProvider(
                source: fixture.user, roleArn: STSFixture.roleArn, stsEndpoint: odd.url.absoluteString + path,
                timeout: .milliseconds(500), environment: [:])
        }
        let garbage = await error(try role("/garbage/"))
        #expect(garbage?.code == .signFailed && garbage?.message.contains("answered no Credentials JSON") == true)
        let empty = await error(try role("/empty/"))
        #expect(empty?.message.contains("without AccessKeyId, AccessKeySecret or SecurityToken") == true)
        let down = await error(try role("/down/"))
        #expect((down?.underlying as? OSSSTSError)?.httpStatus == 503)
        let started = ContinuousClock.now
        let hang = await error(try role("/hang/"))
        #expect(hang?.code == .networkError, "\(String(describing: hang))")
        #expect(hang?.message.contains("the RAM role provider (role \(STSFixture.roleArn))") == true)
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test(
        "judge: alibabacloud-credentials resolves the same RRSA environment and role profiles to the same credentials",
        .enabled(if: CredentialsJudge.available, "needs .venv with alibabacloud-credentials"))
    func judgeAgreesOnRoleCredentials() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let fixed = NIOLockedValueBox<LocalOSSTemporaryCredential?>(nil)
        let fixture = try await STSFixture.start(fixed: fixed)
        defer { Task { await fixture.stop() } }
        let token = try fixture.writeToken(home)
        try home.writeCredentialsFile(
            """
            [default]
            type = ram_role_arn
            access_key_id = \(STSFixture.userKeyId)
            access_key_secret = \(STSFixture.userSecret)
            role_arn = \(STSFixture.roleArn)
            role_session_name = judge-ini
            """)
        try home.writeCLIConfig(
            current: "oidc",
            [
                [
                    "name": "oidc", "mode": "OIDC", "ram_role_arn": STSFixture.roleArn,
                    "oidc_provider_arn": STSFixture.oidcProviderArn, "oidc_token_file": token,
                    "role_session_name": "judge-cli",
                ]
            ])
        try await withTMServer { server, _ in
            fixture.box.set(server)
            fixed.withLockedValue { $0 = server.issueTemporaryCredentials(lifetime: .seconds(3600)) }
            let expected = try #require(fixed.withLockedValue { $0 }).accessKeyId
            let judgeEnvironment = ["JUDGE_STS_ENDPOINT": fixture.endpoint]
            // The RRSA environment through both default chains.
            let rrsa = fixture.rrsaEnvironment(home, session: "judge-rrsa")
            let ours = OSSDefaultCredentialProvider(environment: rrsa, stsEndpoint: fixture.endpoint)
            #expect(try await ours.credentials().accessKeyId == expected)
            let theirs = try await CredentialsJudge.resolve("default", environment: rrsa.merging(judgeEnvironment) { $1 })
            #expect(theirs.access_key_id == expected && theirs.has_token == true, "\(theirs)")
            #expect(theirs.provider?.contains("oidc_role_arn") == true, "\(String(describing: theirs.provider))")
            // The credentials file's ram_role_arn profile, the CLI's OIDC profile.
            let plain = home.environment()
            let ini = OSSProfileCredentialProvider(stsEndpoint: fixture.endpoint, environment: plain)
            #expect(try await ini.credentials().accessKeyId == expected)
            let theirsIni = try await CredentialsJudge.resolve("profile", environment: plain.merging(judgeEnvironment) { $1 })
            #expect(theirsIni.access_key_id == expected && theirsIni.provider?.contains("ram_role_arn") == true, "\(theirsIni)")
            let cli = try OSSCLIProfileCredentialProvider(stsEndpoint: fixture.endpoint, environment: plain)
            #expect(try await cli.credentials().accessKeyId == expected)
            let theirsCLI = try await CredentialsJudge.resolve("cli", environment: plain.merging(judgeEnvironment) { $1 })
            #expect(theirsCLI.access_key_id == expected && theirsCLI.provider?.contains("oidc_role_arn") == true, "\(theirsCLI)")
        }
        // Both libraries sent STS the same calls (the official one signed with GET and its query, this SDK with POST).
        let calls = fixture.sts.calls
        #expect(calls.allSatisfy { $0.errorCode == nil }, "\(calls)")
        func comparable(_ call: LocalSTSService.Call) -> [String: String] {
            call.parameters.filter { ["Action", "RoleArn", "RoleSessionName", "OIDCProviderArn", "DurationSeconds", "AccessKeyId"].contains($0.key) }
        }
        let bySession = Dictionary(grouping: calls) { $0.parameters["RoleSessionName"] ?? "" }
        for session in ["judge-rrsa", "judge-ini", "judge-cli"] {
            let pair = bySession[session] ?? []
            #expect(Set(pair.map(\.httpMethod)) == ["GET", "POST"], "\(session): \(pair)")
            #expect(Set(pair.map(comparable)).count == 1, "\(session): \(pair)")
        }
    }
}
