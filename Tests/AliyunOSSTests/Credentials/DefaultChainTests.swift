import AliyunOSS
import Foundation
import OSSLocalServer
import OSSTestSupport
import Testing

/// `OSSDefaultCredentialProvider`: the libraries' order (environment, OIDC, CLI profile, credentials file, ECS RAM
/// role, credentials URI) over real files, a metadata stand-in and a URI endpoint on loopback; uploads signed with
/// what it yields; one error listing every step; credentials-python's chain choosing the same credentials.
@Suite("Default credentials chain")
struct DefaultChainTests {
    /// The files and services of one home: an INI profile, a CLI profile, a metadata service and a URI, each
    /// handing out credentials the server accepts, with distinguishable key ids where static.
    struct Setup {
        let home: CredentialHome
        let metadata: LocalECSMetadataService
        let uri: LocalHTTPServer
        let box: TMServerBox

        static func start() async throws -> Setup {
            let box = TMServerBox()
            let metadata = try await LocalECSMetadataService.start(roleName: "chain-role") {
                box.server?.issueTemporaryCredentials(lifetime: .seconds(3600))
            }
            let uri = try await LocalHTTPServer.start { _ in
                guard let credential = box.server?.issueTemporaryCredentials(lifetime: .seconds(3600)) else {
                    return .init(status: 503)
                }
                return .init(body: sessionCredentialsJSON(credential))
            }
            return Setup(home: try CredentialHome(), metadata: metadata, uri: uri, box: box)
        }

        func set(_ server: LocalOSSServer) { box.set(server) }

        func stop() async {
            home.cleanup()
            try? await metadata.shutdown()
            try? await uri.shutdown()
        }
    }

    @Test("each step answers in the libraries' order and signs an upload; the answering step is kept")
    func orderAndUploads() async throws {
        let setup = try await Setup.start()
        try await withTMServer { server, _ in
            setup.set(server)
            let key = server.credentials
            let stsForCLI = server.issueTemporaryCredentials(lifetime: .seconds(3600))
            let uriEnvironment = ["ALIBABA_CLOUD_CREDENTIALS_URI": setup.uri.url.absoluteString + "/creds"]
            func chain(_ extra: [String: String], ecs: Bool = false) -> OSSDefaultCredentialProvider {
                var environment = setup.home.environment(extra.merging(uriEnvironment) { own, _ in own })
                if ecs { environment["ALIBABA_CLOUD_ECS_METADATA_DISABLED"] = nil }
                return OSSDefaultCredentialProvider(environment: environment, metadataEndpoint: setup.metadata.url)
            }
            // Nothing on disk, ECS off: the URI (last) answers.
            let viaURI = chain([:])
            try await uploadResumably(server, signedBy: viaURI, key: "chain-uri.bin")
            #expect(viaURI.answeredBy == "credentials URI")
            // The metadata service comes before the URI.
            let viaECS = chain([:], ecs: true)
            try await uploadResumably(server, signedBy: viaECS, key: "chain-ecs.bin")
            #expect(viaECS.answeredBy == "ECS RAM role")
            #expect(setup.metadata.stats.credentialRequests == 1)
            // The credentials file before the metadata service.
            try setup.home.writeCredentialsFile(
                "[default]\ntype = access_key\naccess_key_id = \(key.accessKeyId)\naccess_key_secret = \(key.accessKeySecret)\n")
            let viaFile = chain([:], ecs: true)
            try await uploadResumably(server, signedBy: viaFile, key: "chain-file.bin")
            #expect(viaFile.answeredBy == "credentials file profile")
            // The CLI profile before the credentials file.
            try setup.home.writeCLIConfig(
                current: "temp",
                [["name": "temp", "mode": "StsToken", "access_key_id": stsForCLI.accessKeyId,
                  "access_key_secret": stsForCLI.accessKeySecret, "sts_token": stsForCLI.securityToken]])
            let viaCLI = chain([:])
            try await uploadResumably(server, signedBy: viaCLI, key: "chain-cli.bin")
            #expect(viaCLI.answeredBy == "aliyun CLI profile")
            #expect(try await viaCLI.credentials().accessKeyId == stsForCLI.accessKeyId)
            // The environment before everything; OIDC variables are reported, not fatal.
            let viaEnvironment = chain([
                "ALIBABA_CLOUD_ACCESS_KEY_ID": key.accessKeyId, "ALIBABA_CLOUD_ACCESS_KEY_SECRET": key.accessKeySecret,
            ])
            try await uploadResumably(server, signedBy: viaEnvironment, key: "chain-env.bin")
            #expect(viaEnvironment.answeredBy == "environment")
            // Once answered, the same step answers alone, even after the files change.
            try setup.home.writeCLIConfig(current: "gone", [["name": "other", "mode": "AK"]])
            #expect(try await viaCLI.credentials().accessKeyId == stsForCLI.accessKeyId)
        }
        #expect(setup.metadata.stats.credentialRequests == 1, "steps after the one that answered are not asked")
        await setup.stop()
    }

    @Test("when no step answers: one signFailed error listing what each step found, no secret in it")
    func oneErrorListingEveryStep() async throws {
        let home = try CredentialHome()
        defer { home.cleanup() }
        let notAnInstance = try await LocalHTTPServer.start { _ in .init(status: 404) }
        defer { Task { try? await notAnInstance.shutdown() } }
        try home.writeCredentialsFile("[default]\ntype = ram_role_arn\naccess_key_id = AK\naccess_key_secret = TopSecret\n")
        try home.write("{\"current\": \"x\", \"profiles\": [{\"name\": \"x\", \"access_key_secret\": \"TopSecret\"", to: ".aliyun/config.json")
        var environment = home.environment([
            "ALIBABA_CLOUD_ACCESS_KEY_ID": "AKOnly", "ALIBABA_CLOUD_ROLE_ARN": "acs:ram::1:role/r",
            "ALIBABA_CLOUD_OIDC_PROVIDER_ARN": "acs:ram::1:oidc-provider/p", "ALIBABA_CLOUD_OIDC_TOKEN_FILE": "/t",
        ])
        environment["ALIBABA_CLOUD_ECS_METADATA_DISABLED"] = nil
        // STS (asked by the credentials file's ram_role_arn profile, its role from ALIBABA_CLOUD_ROLE_ARN) on loopback.
        let chain = OSSDefaultCredentialProvider(
            environment: environment, metadataEndpoint: notAnInstance.url,
            stsEndpoint: notAnInstance.url.absoluteString)
        let error = await thrownClientError { _ = try await chain.credentials() }
        let message = error?.message ?? ""
        #expect(error?.code == .signFailed)
        #expect(message.hasPrefix("no credentials from the default chain: environment: ALIBABA_CLOUD_ACCESS_KEY_SECRET is not set"), "\(message)")
        #expect(message.contains("OIDC role: the OIDC role provider (role acs:ram::1:role/r): the OIDC token file /t does not exist"))
        #expect(message.contains("aliyun CLI profile: the aliyun CLI configuration \(home.root.path)/.aliyun/config.json is not the CLI's JSON"))
        #expect(message.contains("credentials file profile: the RAM role provider (role acs:ram::1:role/r)"))
        #expect(message.contains("the RAM role provider (role acs:ram::1:role/r): STS at \(notAnInstance.url.absoluteString) refused with (none) (HTTP 404)"))
        #expect(message.contains("ECS RAM role: the ECS metadata service answered HTTP 404"))
        #expect(message.hasSuffix("credentials URI: skipped: ALIBABA_CLOUD_CREDENTIALS_URI is not set"), "\(message)")
        #expect(!"\(String(describing: error))".contains("TopSecret"))
        #expect(chain.answeredBy == nil)
    }

    @Test("judge: credentials-python's default chain picks the same access key id from the same home",
        .enabled(if: CredentialsJudge.available, "needs .venv with alibabacloud-credentials"))
    func judgedByCredentialsPython() async throws {
        let setup = try await Setup.start()
        try await withTMServer { server, _ in
            setup.set(server)
            let uri = ["ALIBABA_CLOUD_CREDENTIALS_URI": setup.uri.url.absoluteString + "/creds"]
            func compare(_ extra: [String: String], expecting step: String) async throws {
                let environment = setup.home.environment(extra.merging(uri) { own, _ in own })
                let chain = OSSDefaultCredentialProvider(environment: environment)
                let ours = try await chain.credentials()
                let theirs = try await CredentialsJudge.resolve("default", environment: environment)
                #expect(chain.answeredBy == step)
                if step == "credentials URI" {
                    // Each fetch is issued fresh credentials: the same source, compared by shape.
                    #expect(theirs.provider == "default/credential_uri" && theirs.access_key_id?.hasPrefix("STS.") == true)
                } else {
                    #expect(theirs.access_key_id == ours.accessKeyId, "\(step): \(theirs)")
                }
                #expect(theirs.has_token == (ours.securityToken != nil), "\(step)")
            }
            try await compare([:], expecting: "credentials URI")
            try setup.home.writeCredentialsFile(
                "[default]\ntype = access_key\naccess_key_id = AKIni\naccess_key_secret = s\n"
                    + "[alt]\ntype = access_key\naccess_key_id = AKIniAlt\naccess_key_secret = s\n")
            try await compare([:], expecting: "credentials file profile")
            try setup.home.writeCLIConfig(
                current: "dev",
                [["name": "dev", "mode": "AK", "access_key_id": "AKCli", "access_key_secret": "s"],
                 ["name": "alt", "mode": "StsToken", "access_key_id": "STS.CliAlt", "access_key_secret": "s", "sts_token": "t"]])
            try await compare([:], expecting: "aliyun CLI profile")
            try await compare(["ALIBABA_CLOUD_PROFILE": "alt"], expecting: "aliyun CLI profile")
            try await compare(["ALIBABA_CLOUD_CLI_PROFILE_DISABLED": "true", "ALIBABA_CLOUD_PROFILE": "alt"], expecting: "credentials file profile")
            try await compare(
                ["ALIBABA_CLOUD_ACCESS_KEY_ID": "AKEnv", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "s", "ALIBABA_CLOUD_SECURITY_TOKEN": "t"],
                expecting: "environment")
        }
        await setup.stop()
    }
}
